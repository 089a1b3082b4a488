// Compiles the service (src/) to plain JavaScript in dist/, which `npm start` runs: under tsx every thread
// compiled the TypeScript again at start-up and kept esbuild and its caches resident, which cost ~3 s to
// ready and ~300 MiB with two workers. Type checking stays with `npm run typecheck`; this only emits.
// Files under src/ that are not TypeScript (JSON tables, the docs theme) are copied beside the output.
// The entry point is then bundled with the packages it loads into dist/bundle/ (bundleEntry below).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'src');
const DIST = join(ROOT, 'dist');
/** Written last: its time is when dist/ was complete. */
const STAMP = join(DIST, '.built');
/** The bundled entry point (main.js) and its chunks. */
const BUNDLE = join(DIST, 'bundle');

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
  // The container image ships dist/ without src/: its build is all there is to run.
  if (!existsSync(SRC)) return false;
  for (const path of files(SRC)) if (statSync(path).mtimeMs > built) return true;
  return false;
}

/** Thrown when TypeScript is not installed (an install without dev dependencies). */
export class NoCompilerError extends Error {}

// Packages left outside the bundle: native addons, packages that read files beside themselves (wasm, static
// assets, their own worker scripts or package.json), and the ones only loaded on demand anyway.
const EXTERNAL = [
  'better-sqlite3',
  'pg',
  'onnxruntime-node',
  'piscina',
  'pino',
  'pino-pretty',
  'ioredis',
  'bullmq',
  'nodemailer',
  'tsx',
  'tsx/*',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  '@echogarden/*',
  '@evan/opus',
  '@evan/opus/*',
  '@wasm-audio-decoders/*',
  'wasm-media-encoders',
  'libflacjs',
  'mpg123-decoder',
  'ogg-opus-decoder',
];

/**
 * Node 20 resolves, reads and links the app's ~1 500 module files (fastify, ajv, kysely, typebox...) one by
 * one: ~0.8 s of the main thread on the way to ready, about 0.3 s of it saved when they come as one file. The
 * modules keep finding their files: each `import.meta.url` of ours becomes the URL of its own file in dist/
 * (still there, and what the worker threads load), relative to the bundle so dist/ can move.
 */
async function bundleEntry() {
  const { build: esbuild } = await import('esbuild');
  await esbuild({
    entryPoints: { main: join(DIST, 'main.js') },
    outdir: BUNDLE,
    bundle: true,
    // What main.js and the app import on demand (Redis, SMTP, ...) stays on demand: a chunk of its own.
    splitting: true,
    chunkNames: '[name]-[hash]',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: EXTERNAL,
    logLevel: 'warning',
    // CommonJS packages in an ES module: their require() of Node's built-ins needs a real require.
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
    plugins: [
      {
        name: 'own-module-urls',
        setup(b) {
          b.onLoad({ filter: /\.js$/ }, async (args) => {
            if (!args.path.startsWith(DIST)) return undefined;
            const source = readFileSync(args.path, 'utf8');
            const own = JSON.stringify(relative(BUNDLE, args.path).split(sep).join('/'));
            return { contents: source.replaceAll('import.meta.url', `new URL(${own}, import.meta.url).href`), loader: 'js' };
          });
        },
      },
    ],
  });
}

export async function build() {
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
  await bundleEntry();
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    await build();
    console.log('voxsmith: service built into dist/');
  } catch (err) {
    // An install without dev dependencies still installs: `npm start` then runs the sources through tsx.
    if (!(err instanceof NoCompilerError)) throw err;
    console.warn(`voxsmith: ${err.message} (production install?); npm start will run the sources through tsx.`);
  }
}
