// Wyoming is on by default and has no authentication, so nothing one client does may cost others their service:
// a connection that floods events and never reads keeps the server's memory bounded (the socket is paused, events
// wait as bounded bytes); 64 idle connections from one address lock nobody else out (a per-address limit, an idle
// timeout well under 300 s); a client that stops reading is cut; one connection gets a bounded amount of audio.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_WYOMING_LIMITS } from '../../src/wyoming/server.ts';
import { encodeEvent } from '../../src/wyoming/frames.ts';
import { freePort, startProcess, type ServiceProcess } from '../helpers/process.ts';
import { startServer } from '../helpers/server.ts';
import { useService } from '../helpers/fixture.ts';
import { WyomingClient } from '../helpers/wyoming-client.ts';

/** Resident memory of a process, in MiB (Linux). */
function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) / 1024;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('the defaults: an idle timeout well under 300 s, a per-address limit, a buffer bound above the largest frame', () => {
  assert.ok(DEFAULT_WYOMING_LIMITS.idleMs <= 60_000, `${DEFAULT_WYOMING_LIMITS.idleMs} ms`);
  assert.ok(DEFAULT_WYOMING_LIMITS.connectionsPerAddress <= 16);
  assert.ok(DEFAULT_WYOMING_LIMITS.maxConnections >= (64 * DEFAULT_WYOMING_LIMITS.connectionsPerAddress) / 8);
  assert.ok(DEFAULT_WYOMING_LIMITS.writeStallMs <= 30_000);
});

describe('Wyoming connection limits (in-process server, shortened timeouts)', () => {
  const s = useService({ env: { WYOMING_PORT: '0' }, wyomingLimits: { idleMs: 6000, writeStallMs: 1000 } });
  let port: number;
  before(async () => {
    port = s.app.services.wyoming?.address()?.port ?? 0;
    const { id, cookie } = await s.newKey('limits@example.com', 'home-assistant');
    const put = await s.request('/api/wyoming', { method: 'PUT', cookie, sameOrigin: true, json: { key_id: id } });
    assert.equal(put.status, 200);
  });

  test('64 idle connections from one address: only its share is kept, the rest refused; another address is served', async () => {
    const idle = Array.from({ length: 64 }, () => new WyomingClient(port));
    // Each refused one is told why and closed; the rest stay open, idle.
    let refused = 0;
    for (const c of idle)
      void c.next(20_000).then(
        (e) => (refused += e.data.code === 'rate_limited' ? 1 : 0),
        () => undefined,
      );
    const expected = 64 - DEFAULT_WYOMING_LIMITS.connectionsPerAddress;
    for (const deadline = Date.now() + 20_000; refused < expected && Date.now() < deadline;) await sleep(50);
    assert.equal(refused, expected);
    await sleep(200);
    assert.equal(refused, expected, 'no more than that are refused');
    const open = idle.filter((c) => !c.closed);
    assert.equal(open.length, DEFAULT_WYOMING_LIMITS.connectionsPerAddress, 'the per-address share stays open');

    const elsewhere = new WyomingClient(port, { localAddress: '127.0.0.2' });
    elsewhere.send('describe');
    assert.equal((await elsewhere.next(10_000)).type, 'info', 'a client at another address is not locked out');
    elsewhere.send('synthesize', { text: 'Hello from the other address.' });
    assert.ok((await elsewhere.audio()).samples > 12_000);
    elsewhere.close();

    // The idle ones time out, and the address may connect again.
    await Promise.all(open.map((c) => c.whenClosed()));
    const back = new WyomingClient(port);
    back.send('ping');
    assert.equal((await back.next(10_000)).type, 'pong');
    back.close();
  });

  test('a client that never reads its audio is cut after the write-stall timeout; its slot serves others', async () => {
    const reader = connect({ port, host: '127.0.0.1' });
    reader.on('error', () => undefined);
    // Long text, and the socket is paused: the server's answers pile up unread.
    reader.pause();
    const text = 'This sentence is long enough to be spoken for a while and more. '.repeat(40);
    reader.write(encodeEvent('synthesize', { text }));
    const closed = new Promise<void>((resolve) => reader.once('close', () => resolve()));
    // A paused socket never sees the server's FIN (it is behind the unread audio): a write after the server has
    // let go fails, and that closes it.
    const poke = setInterval(() => reader.write(encodeEvent('ping')), 250);
    await closed;
    clearInterval(poke);
    // Cut by the write stall (not by the idle timer or the client): the server says why.
    assert.ok(
      s.logs.some((l) => l.includes('client stopped reading its answers')),
      'cut for its unread audio',
    );
    const other = new WyomingClient(port);
    other.send('synthesize', { text: 'Still served.' });
    assert.ok((await other.audio()).samples > 6000);
    other.close();
  });

  test('one connection gets at most its audio budget, then an audio_too_long error, and it is closed', async () => {
    const budget = await startServer({ env: { WYOMING_PORT: '0', WYOMING_API_KEY: '' }, wyomingLimits: { maxAudioSeconds: 4 } });
    after(() => budget.close());
    const { id, cookie } = await budget.newKey('budget@example.com', 'home-assistant');
    assert.equal((await budget.request('/api/wyoming', { method: 'PUT', cookie, sameOrigin: true, json: { key_id: id } })).status, 200);
    const c = new WyomingClient(budget.app.services.wyoming?.address()?.port ?? 0);
    c.send('synthesize-start', { voice: { name: 'flite-slt' } });
    for (let i = 0; i < 8; i++) c.send('synthesize-chunk', { text: `This is sentence number ${i + 1} of a long reading. ` });
    c.send('synthesize-stop');
    let samples = 0;
    let error: Record<string, unknown> | undefined;
    for (;;) {
      const e = await c.next().catch(() => null);
      if (!e) break;
      if (e.type === 'audio-chunk') samples += (e.payload?.length ?? 0) / 2;
      if (e.type === 'error') error = e.data;
    }
    assert.equal(error?.code, 'audio_too_long', JSON.stringify(error));
    assert.ok(samples > 0 && samples <= 4 * 24_000, `${samples} samples`);
    await c.whenClosed();
  });
});

describe('Wyoming under a flood (the service as its own process, its RSS measured)', () => {
  let service: ServiceProcess;
  let wyomingPort: number;
  const dataDir = mkdtempSync(join(tmpdir(), 'voxsmith-wyoming-flood-'));
  before(async () => {
    wyomingPort = await freePort();
    service = await startProcess({ DATA_DIR: dataDir, SMTP_URL: '', WORKERS: '1', WYOMING_PORT: String(wyomingPort) });
  });
  after(async () => {
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Writes `describe` events as fast as the socket takes them, never reading; resolves with the bytes the server took. */
  async function flood(seconds: number): Promise<{ written: number; socket: Socket }> {
    const socket = connect({ port: wyomingPort, host: '127.0.0.1' });
    socket.on('error', () => undefined);
    socket.pause();
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const batch = Buffer.concat(Array.from({ length: 256 }, () => encodeEvent('describe')));
    let written = 0;
    const end = Date.now() + seconds * 1000;
    while (Date.now() < end && !socket.destroyed) {
      if (socket.write(batch)) {
        written += batch.length;
        continue;
      }
      written += batch.length;
      // Wait for the server to take more, but not past the end: a paused server never will.
      await Promise.race([new Promise((r) => socket.once('drain', r)), sleep(end - Date.now())]);
    }
    return { written, socket };
  }

  test('four connections flooding describe and never reading: RSS grows by under 64 MiB, another client is served', async () => {
    // Settled first: the engines warm in their worker after the start (readyz), and the voice list is rendered
    // once, so neither is counted as flood growth.
    for (const deadline = Date.now() + 120_000; (await fetch(`${service.base}/readyz`)).status !== 200;) {
      assert.ok(Date.now() < deadline, 'ready in time');
      await sleep(200);
    }
    const warm = new WyomingClient(wyomingPort);
    warm.send('describe');
    assert.equal((await warm.next(30_000)).type, 'info');
    warm.close();
    // The threads go on warming the engines the default voice does not use after readyz (tens of MiB): the
    // baseline waits until RSS holds still for two seconds (at most 30 s), so only the flood is counted.
    const pid = service.child.pid as number;
    let settled = rssMiB(pid);
    for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
      await sleep(2000);
      const now = rssMiB(pid);
      if (Math.abs(now - settled) < 2) break;
      settled = now;
    }
    const baseline = rssMiB(pid);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 100);
    try {
      const floods = Array.from({ length: 4 }, () => flood(6));
      await sleep(3000);
      // Meanwhile, another client (another address) is answered.
      const healthy = new WyomingClient(wyomingPort, { localAddress: '127.0.0.2' });
      healthy.send('ping');
      assert.equal((await healthy.next(10_000)).type, 'pong');
      healthy.send('describe');
      assert.equal((await healthy.next(10_000)).type, 'info');
      healthy.close();
      const results = await Promise.all(floods);
      const written = results.reduce((sum, r) => sum + r.written, 0);
      for (const r of results) r.socket.destroy();
      // A paused socket stops taking bytes: what the four managed to send is bounded by buffers, not by time.
      assert.ok(written < 64 * 1024 * 1024, `${(written / 1048576).toFixed(1)} MiB written`);
    } finally {
      clearInterval(sampler);
    }
    const growth = peak - baseline;
    process.stdout.write(`# flood: RSS ${baseline.toFixed(0)} MiB -> peak ${peak.toFixed(0)} MiB (+${growth.toFixed(1)} MiB)\n`);
    assert.ok(growth < 64, `RSS grew by ${growth.toFixed(1)} MiB`);
  });
});
