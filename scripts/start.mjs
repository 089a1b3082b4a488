// `npm start`: runs the compiled service (dist/), compiling it first when src/ changed since the last build,
// so the quick start and a developer's edit-and-restart both run current code. An install without dev
// dependencies (no TypeScript) and no current build runs the sources through tsx, as before dist/ existed.
import { build, isStale, NoCompilerError } from './build.mjs';

let entry = '../dist/bundle/main.js';
if (isStale()) {
  try {
    console.log('voxsmith: compiling the service (src/ changed since the last build)');
    await build();
  } catch (err) {
    if (!(err instanceof NoCompilerError)) throw err;
    console.warn(`voxsmith: ${err.message}; running it through tsx (slower to start, more memory)`);
    const { register } = await import('tsx/esm/api');
    register();
    entry = '../src/main.ts';
  }
}
await import(entry);
