// VOICES_INSTALL for containers and clusters: two service processes started at once on one shared VOICES_DIR
// each install what is missing, with progress in the log; every file is downloaded once (the second process
// waits for the first's lock), neither ever loads a half file, and both end up serving the voices.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess, type ServiceProcess } from '../helpers/process.ts';
import { startCatalogServer, type CatalogServer } from '../helpers/voice-catalog-server.ts';

const root = mkdtempSync(join(tmpdir(), 'voxsmith-install-at-start-'));
const voicesDir = join(root, 'shared-voices');
let catalog: CatalogServer;
const procs: ServiceProcess[] = [];

before(async () => {
  const lessac = '/piper/en/en_US/lessac/medium/en_US-lessac-medium.onnx';
  catalog = await startCatalogServer({
    piper: [{ key: 'en_US-lessac-medium', paddingBytes: 600_000 }],
    kokoroPaddingBytes: 300_000,
    // Both processes are installing at the same time: the first file waits until both have read the catalogue.
    throttleMs: { [lessac]: 40, '/kokoro/kokoro-v1.0.int8.onnx': 40 },
    hold: { paths: [lessac, '/kokoro/voices-v1.0.bin'], catalogReads: 2 },
  });
});
after(async () => {
  for (const p of procs) await p.stop();
  await catalog.close();
  rmSync(root, { recursive: true, force: true });
});

async function ids(p: ServiceProcess): Promise<string[]> {
  const res = await fetch(`${p.base}/api/voices?engine=piper`);
  const piper = ((await res.json()) as { voices: { id: string }[] }).voices.map((v) => v.id);
  const kokoro = ((await (await fetch(`${p.base}/api/voices?engine=kokoro`)).json()) as { voices: { id: string }[] }).voices.map(
    (v) => v.id,
  );
  return [...piper, ...kokoro];
}

test('two processes sharing VOICES_DIR install VOICES_INSTALL once, and both serve the voices', async () => {
  const env = (n: number) => ({
    DATA_DIR: join(root, `data-${n}`),
    VOICES_DIR: voicesDir,
    VOICES_INSTALL: 'en_US-lessac-medium,kokoro-v1.0-int8',
    VOICES_CATALOG_URL: catalog.catalogUrl,
    KOKORO_FILES_URL: catalog.kokoroUrl,
    WORKERS: '1',
    LOG_FORMAT: 'json',
  });
  procs.push(...(await Promise.all([startProcess(env(1)), startProcess(env(2))])));
  const want = ['piper-en-us-lessac-medium', 'kokoro-af-heart', 'kokoro-am-michael', 'kokoro-bf-emma'];
  const deadline = Date.now() + 90_000;
  for (const p of procs) {
    for (;;) {
      const have = await ids(p);
      if (want.every((id) => have.includes(id))) break;
      assert.ok(Date.now() < deadline, `not served in time by ${p.base}: ${have.join(', ')}\n${p.output().slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  // Each file went over the wire once, in full (the lock holder downloaded; the other waited and found it there).
  for (const [path, body] of catalog.files) {
    if (!/\.(onnx|json|bin)$/.test(path) || path.endsWith('voices.json') || path.endsWith('files.json')) continue;
    if (path.includes('fp16') || path.endsWith('kokoro-v1.0.onnx')) continue;
    const served = catalog.requests.filter((r) => r.path === path).reduce((n, r) => n + r.bytes, 0);
    assert.equal(served, body.length, `${path}: ${served} bytes served for a ${body.length}-byte file`);
  }
  const logs = procs.map((p) => p.output());
  assert.ok(
    logs.some((l) => /VOICES_INSTALL: installing en_US-lessac-medium/.test(l)),
    'progress is logged',
  );
  assert.ok(
    logs.some((l) => /installing en_US-lessac-medium: (25|50|75)% of/.test(l)),
    'with percentages',
  );
  assert.ok(
    logs.some((l) => /installed (en_US-lessac-medium|kokoro-v1\.0-int8) \(already there\)/.test(l)),
    'the installs overlapped: one process waited for the other’s download',
  );
  for (const l of logs) assert.doesNotMatch(l, /VOICES_DIR: skipped/, 'no half or orphan file was ever seen');
  assert.deepEqual(readdirSync(voicesDir).sort(), [
    'en_US-lessac-medium.onnx',
    'en_US-lessac-medium.onnx.json',
    'kokoro-v1.0.int8.onnx',
    'voices-v1.0.bin',
  ]);
});
