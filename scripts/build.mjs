// Compiles the service (src/) to plain JavaScript in dist/, which `npm start` runs: under tsx every thread
// compiled the TypeScript again at start-up and kept esbuild and its caches resident, which cost ~3 s to
// ready and ~300 MiB with two workers. Type checking stays with `npm run typecheck`; this only emits.
// Files under src/ that are not TypeScript (JSON tables, the docs theme) are copied beside the output.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'src');
const DIST = join(ROOT, 'dist');
/** Written last: its time is when dist/ was complete. */
const STAMP = join(DIST, '.built');

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

/** Whether some file under src/ changed since the last complete build (or there is none). */
export function isStale() {
  let built;
  try {
    built = statSync(STAMP).mtimeMs;
  } catch {
    return true;
  }
  for (const path of files(SRC)) if (statSync(path).mtimeMs > built) return true;
  return false;
}

/** Thrown when TypeScript is not installed (an install without dev dependencies). */
export class NoCompilerError extends Error {}

export function build() {
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    throw new NoCompilerError('TypeScript is not installed, so src/ cannot be compiled');
  }
  rmSync(DIST, { recursive: true, force: true });
  const result = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`tsc exited with ${result.status ?? result.signal}`);
  for (const path of files(SRC)) {
    if (path.endsWith('.ts')) continue;
    const target = join(DIST, relative(SRC, path));
    mkdirSync(dirname(target), { recursive: true });
    cpSync(path, target);
  }
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    build();
    console.log('voxsmith: service built into dist/');
  } catch (err) {
    // An install without dev dependencies still installs: `npm start` then runs the sources through tsx.
    if (!(err instanceof NoCompilerError)) throw err;
    console.warn(`voxsmith: ${err.message} (production install?); npm start will run the sources through tsx.`);
  }
}
