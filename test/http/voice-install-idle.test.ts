// Issue 44 V2: a mirror that trickles bytes kept an install "downloading" forever, and nothing could stop it. Now a
// source that sends (next to) nothing for VOICES_DOWNLOAD_IDLE_SECONDS fails the install with the reason, and the
// operator cancels an install in progress (DELETE /api/admin/voices/installs/{name}), which deletes its partial
// files. Both through the real server, against a local catalogue in the real formats.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STAGING_DIR } from '../../src/voices/install/installer.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { startCatalogServer, type CatalogServer } from '../helpers/voice-catalog-server.ts';

const TRICKLED = 'en_US-amy-low';
const SLOW = 'en_US-joe-medium';

interface Install {
  name: string;
  status: string;
  received: number;
  total: number;
  error?: string;
  finished_at?: string;
}

const dataDir = mkdtempSync(join(tmpdir(), 'voxsmith-install-idle-'));
const voicesDir = join(dataDir, 'voices');
let catalog: CatalogServer;
let s: TestServer;
let operator: string;

before(async () => {
  // 100 bytes every 100 ms (1 KB/s) forever, as the reported mirror did; the other voice arrives at a steady
  // 320 KiB/s, far above the idle bound, but takes long enough to be cancelled half way.
  const trickled = '/piper/en/en_US/amy/low/en_US-amy-low.onnx';
  const slow = '/piper/en/en_US/joe/medium/en_US-joe-medium.onnx';
  catalog = await startCatalogServer({
    piper: [
      { key: TRICKLED, paddingBytes: 400_000 },
      { key: SLOW, paddingBytes: 4_000_000 },
    ],
    trickle: { [trickled]: { bytes: 100, everyMs: 100 } },
    throttleMs: { [slow]: 50 },
  });
  s = await startServer({
    dataDir,
    env: {
      VOICES_DIR: voicesDir,
      VOICES_CATALOG_URL: catalog.catalogUrl,
      KOKORO_FILES_URL: catalog.kokoroUrl,
      VOICES_DOWNLOAD_IDLE_SECONDS: '5',
      WORKERS: '1',
    },
  });
  ({ cookie: operator } = await s.signIn('owner@example.com'));
});
after(async () => {
  await s?.close();
  await catalog?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function installs(): Promise<Install[]> {
  const res = await s.request('/api/admin/voices/installs', { cookie: operator });
  assert.equal(res.status, 200);
  return ((await res.json()) as { installs: Install[] }).installs;
}

/** Polls the install of `name` until `done` holds (a bound about hangs, not speed). */
async function until(name: string, done: (i: Install) => boolean, ms = 30_000): Promise<Install> {
  const deadline = Date.now() + ms;
  for (;;) {
    const install = (await installs()).find((i) => i.name === name);
    if (install && done(install)) return install;
    if (install?.finished_at) throw new Error(`install of ${name} ended: ${JSON.stringify(install)}`);
    if (Date.now() > deadline) throw new Error(`install of ${name} still ${JSON.stringify(install)} after ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const partials = () => (existsSync(join(voicesDir, STAGING_DIR)) ? readdirSync(join(voicesDir, STAGING_DIR)) : []);

describe('voice installs: idle timeout and cancel (issue 44 V2)', () => {
  test('a trickling mirror is cut by the idle timeout: the install fails with the reason and leaves nothing', async () => {
    const res = await s.request('/api/admin/voices/installs', { json: { name: TRICKLED }, cookie: operator, sameOrigin: true });
    assert.equal(res.status, 202);
    const failed = await until(TRICKLED, (i) => i.status !== 'queued' && i.status !== 'waiting' && i.status !== 'downloading');
    assert.equal(failed.status, 'failed', JSON.stringify(failed));
    assert.match(failed.error ?? '', /VOICES_DOWNLOAD_IDLE_SECONDS/);
    assert.ok(failed.received < failed.total);
    assert.deepEqual(
      partials().filter((f) => f.startsWith(TRICKLED)),
      [],
    );
    assert.ok(!existsSync(join(voicesDir, `${TRICKLED}.onnx`)));
    assert.ok(s.logs.some((l) => l.includes(`installing ${TRICKLED} failed`) && l.includes('VOICES_DOWNLOAD_IDLE_SECONDS')));
  });

  test('the operator cancels an install in progress: the download stops, its partial files are deleted', async () => {
    const res = await s.request('/api/admin/voices/installs', { json: { name: SLOW }, cookie: operator, sameOrigin: true });
    assert.equal(res.status, 202);
    // Well into the model (the small files come first).
    await until(SLOW, (i) => i.status === 'downloading' && i.received > 100_000);
    assert.ok(
      partials().some((f) => f === `${SLOW}.onnx.part`),
      `partial file while downloading: ${partials().join(', ')}`,
    );

    // Not for another account, nor without the dashboard's Origin.
    const { cookie: other } = await s.signIn('someone@example.com');
    const refused = await s.request(`/api/admin/voices/installs/${SLOW}`, { method: 'DELETE', cookie: other, sameOrigin: true });
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { code: string }).code, 'operator_only');

    const cancel = await s.request(`/api/admin/voices/installs/${SLOW}`, { method: 'DELETE', cookie: operator, sameOrigin: true });
    assert.equal(cancel.status, 200);
    const { install } = (await cancel.json()) as { install: Install };
    assert.equal(install.status, 'cancelled');
    assert.ok(install.received < install.total);
    assert.deepEqual(
      partials().filter((f) => f.startsWith(SLOW)),
      [],
    );
    assert.equal((await installs()).find((i) => i.name === SLOW)?.status, 'cancelled');
    // The mirror's transfer stopped: what it served is what the install had received, give or take a piece.
    const served = () => catalog.requests.filter((r) => r.path === catalog.piperPath(SLOW, '.onnx')).reduce((n, r) => n + r.bytes, 0);
    const atCancel = served();
    await new Promise((r) => setTimeout(r, 500));
    assert.ok(served() - atCancel <= 16 * 1024, `${served() - atCancel} bytes served after the cancel`);
    assert.ok(!existsSync(join(voicesDir, `${SLOW}.onnx`)));

    // Nothing left to cancel: a JSON 404.
    const again = await s.request(`/api/admin/voices/installs/${SLOW}`, { method: 'DELETE', cookie: operator, sameOrigin: true });
    assert.equal(again.status, 404);
    assert.equal(((await again.json()) as { code: string }).code, 'not_found');
  });
});
