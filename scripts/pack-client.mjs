// Builds the SDK in client/ and packs it as npm would publish it, into client/pack/voxsmith-client.tgz: the
// service serves that file at GET /sdk/voxsmith-client.tgz, so a project installs the SDK from the running
// server (`npm install http://host:8080/sdk/voxsmith-client.tgz`) without a registry. Runs on `npm ci` (prepare)
// and `npm run build:client`; an install without TypeScript (production) skips it and the route says so.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLIENT = join(ROOT, 'client');
export const PACKED = join(CLIENT, 'pack', 'voxsmith-client.tgz');

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${[command, ...args].join(' ')} failed: ${result.stderr || result.stdout}`);
  return result.stdout;
}

export function packClient() {
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    console.warn('voxsmith: TypeScript is not installed (production install?); the SDK package is not built.');
    return false;
  }
  // Built and packed in a folder of its own, so client/dist (which a developer or a test may be building) is left alone.
  const stage = mkdtempSync(join(tmpdir(), 'voxsmith-client-pack-'));
  try {
    run(process.execPath, [tsc, '-p', join(CLIENT, 'tsconfig.build.json'), '--outDir', join(stage, 'dist')], ROOT);
    for (const name of ['package.json', 'README.md']) copyFileSync(join(CLIENT, name), join(stage, name));
    const out = join(CLIENT, 'pack');
    mkdirSync(out, { recursive: true });
    // npm's own packer (its `files`, README and package.json rules); the build above is its prepack, so no scripts.
    const npm = process.env.npm_execpath && existsSync(process.env.npm_execpath) ? [process.execPath, process.env.npm_execpath] : ['npm'];
    const [command, ...pre] = npm;
    run(command, [...pre, 'pack', '--ignore-scripts', '--loglevel=error', '--pack-destination', stage], stage);
    const { version } = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8'));
    // A rename within one folder is atomic: the server never serves half a file.
    copyFileSync(join(stage, `voxsmith-client-${version}.tgz`), `${PACKED}.tmp`);
    renameSync(`${PACKED}.tmp`, PACKED);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (packClient()) console.log('voxsmith: SDK packed into client/pack/voxsmith-client.tgz');
}
