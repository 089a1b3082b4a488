// The SDK installs from the server: GET /sdk/voxsmith-client.tgz is the package as npm packs it, `npm install <that
// URL>` puts @voxsmith/client into a project, and plain node then speaks with it against the same server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { startServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let key: string;
let project: string;

before(async () => {
  const packed = spawnSync(process.execPath, [resolve('scripts/pack-client.mjs')], { encoding: 'utf8' });
  assert.equal(packed.status, 0, packed.stdout + packed.stderr);
  s = await startServer();
  ({ key } = await s.newKey('sdk-download@example.com'));
  project = mkdtempSync(join(tmpdir(), 'voxsmith-sdk-project-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-app', private: true, type: 'module' }));
});
after(async () => {
  await s?.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { cwd });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (code) => resolvePromise({ code, output }));
  });
}

/** The names and contents of the files in a tar archive. */
function untar(tar: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (let at = 0; at + 512 <= tar.length;) {
    const name = tar.toString('utf8', at, at + 100).replace(/\0.*$/s, '');
    if (name === '') break;
    const size = parseInt(
      tar
        .toString('latin1', at + 124, at + 136)
        .replace(/\0.*$/s, '')
        .trim() || '0',
      8,
    );
    files.set(name, tar.subarray(at + 512, at + 512 + size));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

describe('the SDK from the server', () => {
  test('GET /sdk/voxsmith-client.tgz is the npm package: built JavaScript, declarations, package.json, README', async () => {
    const res = await fetch(`${s.base}/sdk/voxsmith-client.tgz`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/gzip');
    const files = untar(gunzipSync(Buffer.from(await res.arrayBuffer())));
    const pkg = JSON.parse(files.get('package/package.json')?.toString('utf8') ?? '{}') as {
      name: string;
      exports: Record<string, { import: string; types: string }>;
    };
    assert.equal(pkg.name, '@voxsmith/client');
    assert.ok(files.has(`package/${pkg.exports['.'].import.replace(/^\.\//, '')}`));
    assert.ok(files.has(`package/${pkg.exports['.'].types.replace(/^\.\//, '')}`));
    assert.ok(files.has('package/README.md'));
    assert.ok(![...files.keys()].some((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')), 'no TypeScript sources');
    // Revalidation: the same ETag is a 304.
    const again = await fetch(`${s.base}/sdk/voxsmith-client.tgz`, { headers: { 'if-none-match': res.headers.get('etag') ?? '' } });
    assert.equal(again.status, 304);
  });

  test('npm install <the URL> installs it; plain node imports it by name and speaks', async () => {
    // Asynchronously: the server answering npm runs in this process.
    const install = await run(
      'npm',
      ['install', `${s.base}/sdk/voxsmith-client.tgz`, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'],
      project,
    );
    assert.equal(install.code, 0, install.output);
    const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    assert.equal(manifest.dependencies['@voxsmith/client'], `${s.base}/sdk/voxsmith-client.tgz`);
    const out = await new Promise<string>((resolvePromise, reject) => {
      const child = spawn(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { VoxsmithClient } from '@voxsmith/client';
           const vox = new VoxsmithClient({ baseUrl: ${JSON.stringify(s.base)}, apiKey: ${JSON.stringify(key)} });
           const speech = await vox.speak({ text: 'Installed from the server.', voice_id: 'default', format: 'pcm' });
           console.log(JSON.stringify({ bytes: speech.audio.length, voice: speech.voiceId }));`,
        ],
        { cwd: project, env: { PATH: process.env.PATH ?? '' } },
      );
      let text = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (text += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('close', (code) => (code === 0 ? resolvePromise(text) : reject(new Error(err))));
    });
    const result = JSON.parse(out) as { bytes: number; voice: string };
    assert.ok(result.bytes > 24_000, `${result.bytes} bytes of speech`);
    assert.equal(result.voice, 'flite-slt');
  });
});
