// The SDK as people install it: client/ built to JavaScript and declarations, imported by its package name in
// a plain `node` process (no tsx), and used against a real server. Also type-checks a consumer of the package.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startServer, type TestServer } from '../helpers/server.ts';

const CLIENT = resolve('client');
const TSC = resolve('node_modules/typescript/bin/tsc');

let s: TestServer;
let key: string;
let consumer: string;

before(async () => {
  rmSync(join(CLIENT, 'dist'), { recursive: true, force: true });
  const build = spawnSync(process.execPath, [TSC, '-p', join(CLIENT, 'tsconfig.build.json')], { encoding: 'utf8' });
  assert.equal(build.status, 0, build.stdout + build.stderr);
  // A project that depends on the package: node_modules/@voxsmith/client is the client folder, as npm links it.
  consumer = mkdtempSync(join(tmpdir(), 'voxsmith-consumer-'));
  mkdirSync(join(consumer, 'node_modules', '@voxsmith'), { recursive: true });
  symlinkSync(CLIENT, join(consumer, 'node_modules', '@voxsmith', 'client'), 'dir');
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  s = await startServer();
  ({ key } = await s.newKey('package-user@example.com'));
});
after(async () => {
  await s?.close();
  if (consumer) rmSync(consumer, { recursive: true, force: true });
});

/** Runs an ES module in a child `node` (no loaders, no tsx) inside the consumer project; its stdout is JSON. */
function runNode(source: string): Promise<unknown> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', source], { cwd: consumer, env: { PATH: process.env.PATH ?? '' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`node exited ${code}: ${err}`));
      try {
        resolvePromise(JSON.parse(out));
      } catch {
        reject(new Error(`not JSON: ${out} ${err}`));
      }
    });
  });
}

describe('client package', () => {
  test('package.json points at built JavaScript and declarations that exist', () => {
    const pkg = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8')) as {
      name: string;
      type: string;
      exports: { '.': { types: string; import: string } };
      files: string[];
      dependencies: Record<string, string>;
    };
    assert.equal(pkg.type, 'module');
    assert.ok(existsSync(join(CLIENT, pkg.exports['.'].import)), pkg.exports['.'].import);
    assert.ok(existsSync(join(CLIENT, pkg.exports['.'].types)), pkg.exports['.'].types);
    assert.ok(pkg.files.includes('dist'));
    // The schemas' declarations name TypeBox's types, so it is a dependency of the package, not of the repo alone.
    assert.ok(pkg.dependencies['@sinclair/typebox']);
    assert.ok(existsSync(join(CLIENT, 'dist/src/schemas/voices.d.ts')), 'the schemas travel inside dist');
  });

  test('plain node imports it by name and speaks, searches, streams and reports errors against a real server', async () => {
    const wsUrl = import.meta.resolve('ws');
    const result = (await runNode(`
      import { VoxsmithClient, VoxsmithError, STREAM_SAMPLE_RATE } from '@voxsmith/client';
      const { default: WebSocket } = await import(${JSON.stringify(wsUrl)});
      const client = new VoxsmithClient({ baseUrl: ${JSON.stringify(s.base)}, apiKey: ${JSON.stringify(key)}, WebSocket });
      const found = await client.searchVoices('british female', { limit: 5 });
      const speech = await client.speak({ text: 'Hello from a plain Node process.', voice_id: found[0].id, format: 'pcm' });
      let samples = 0;
      const stream = client.stream({ text: 'Streaming too.', voice_id: 'flite-slt' });
      let next = await stream.next();
      while (!next.done) { samples += next.value.length; next = await stream.next(); }
      let failure = null;
      try { await client.speak({ text: 'Hi.', voice_id: 'robot-9' }); } catch (err) {
        failure = { isVoxsmithError: err instanceof VoxsmithError, status: err.status, code: err.code, requestId: err.requestId };
      }
      console.log(JSON.stringify({
        rate: STREAM_SAMPLE_RATE,
        found: found.map((v) => ({ id: v.id, language: v.language, gender: v.gender })),
        speech: { bytes: speech.audio.length, contentType: speech.contentType, sampleRate: speech.sampleRate, voiceId: speech.voiceId },
        stream: { samples, done: next.value },
        failure,
      }));
    `)) as {
      rate: number;
      found: Array<{ id: string; language: string; gender: string }>;
      speech: { bytes: number; contentType: string; sampleRate: number; voiceId: string };
      stream: { samples: number; done: { samples: number; cancelled: boolean } };
      failure: { isVoxsmithError: boolean; status: number; code: string; requestId: string } | null;
    };
    assert.equal(result.rate, 24_000);
    assert.ok(result.found.length > 0 && result.found.length <= 5);
    assert.match(result.found[0].language, /^en-GB/);
    assert.equal(result.found[0].gender, 'female');
    assert.equal(result.speech.contentType, 'audio/pcm');
    assert.equal(result.speech.voiceId, result.found[0].id);
    // 16-bit samples at the stated rate: more than half a second of speech.
    assert.ok(result.speech.bytes / 2 / result.speech.sampleRate > 0.5, `${result.speech.bytes} bytes`);
    assert.ok(result.stream.samples > 0.3 * 24_000, `${result.stream.samples} samples`);
    assert.equal(result.stream.done.samples, result.stream.samples);
    assert.deepEqual(
      { ...result.failure, requestId: undefined },
      { isVoxsmithError: true, status: 404, code: 'voice_not_found', requestId: undefined },
    );
    assert.match(result.failure?.requestId ?? '', /^[0-9a-f-]{36}$/);
  });

  test('a TypeScript project type-checks against the declarations (strict, NodeNext)', () => {
    writeFileSync(
      join(consumer, 'use.ts'),
      `import { VoxsmithClient, type ErrorCode, type Voice } from '@voxsmith/client';
const client = new VoxsmithClient({ baseUrl: 'http://localhost:8080' });
export const voices: Promise<Voice[]> = client.listVoices({ gender: 'female' });
export const code: ErrorCode = 'voice_not_found';
// @ts-expect-error: not a gender
client.listVoices({ gender: 'robot' });
`,
    );
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          lib: ['ES2022', 'DOM'],
          types: [],
        },
        files: ['use.ts'],
      }),
    );
    const tsc = spawnSync(process.execPath, [TSC, '-p', consumer], { encoding: 'utf8' });
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  });
});
