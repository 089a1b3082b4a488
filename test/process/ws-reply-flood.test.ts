// A WebSocket client that sends `flush` after `flush` and reads nothing once grew the server to 1 GB: every flush
// is answered, and the answers piled up in the send buffer because the stall check ran only while audio was
// being sent. Now replies over the bound stop the reading of the client's messages, and a client that takes none
// of its replies for the stall timeout (10 s) is dropped, synthesis or not. The service runs as its own process so
// that its peak RSS is what is measured.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { signedInKey, START, startProcess, type ServiceProcess } from '../helpers/process.ts';
import { SmtpSink } from '../helpers/smtp-sink.ts';

/**
 * How far the flood may raise the service's peak RSS. Reading stops at 1 MiB of unsent replies (each small reply
 * costs several times its bytes in the socket's queue), after the kernel's buffers took their share; what the
 * service parsed and answered until then is garbage it collects: measured +12-18 MiB on a quiet machine, up to
 * +134 MiB with the two cores shared by CI's other test files and a benchmark (collection lags); before, 30 s of
 * flushes raised it by 750-900 MiB, growing for as long as the client sent. The bound sits between the two.
 */
const RSS_BOUND_MIB = 256;
/** The stall timeout (10 s) and then some, on two shared cores. */
const CUT_WITHIN_MS = 25_000;
const ORIGIN = 'http://voxsmith.test';

const dataDir = mkdtempSync(join(tmpdir(), 'voxsmith-ws-flood-'));
const mail = new SmtpSink();
let service: ServiceProcess;
let key: string;

function status(field: 'VmHWM' | 'VmRSS'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${service.child.pid}/status`, 'utf8'));
  assert.ok(m);
  return Number(m[1]);
}

before(async () => {
  // With npm start's memory settings (its environment, and its node flag as NODE_OPTIONS), from the sources.
  const flags = START.args.filter((a) => a.startsWith('--')).join(' ');
  service = await startProcess({
    ...START.env,
    NODE_OPTIONS: flags,
    DATA_DIR: dataDir,
    PUBLIC_URL: ORIGIN,
    SMTP_URL: await mail.start(),
    WORKERS: '1',
    RATE_LIMIT_PER_MINUTE: '10000',
  });
  ({ key } = await signedInKey(service.base, mail, 'flood@example.com', ORIGIN));
});
after(async () => {
  await service?.stop();
  await mail.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('WebSocket reply flood', () => {
  test(`flushes sent without reading: the server stops reading, drops the client within ${CUT_WITHIN_MS / 1000} s, peak RSS within ${RSS_BOUND_MIB} MiB`, async () => {
    const ws = new WebSocket(`${service.base.replace('http', 'ws')}/v1/ws/stream?token=${key}`);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    let closed = false;
    ws.on('close', () => (closed = true));
    ws.on('error', () => undefined);
    // The server cutting us shows as a failed write even while we read nothing.
    ws.on('error', () => (closed = true));
    // Read nothing: the replies stay in the server's send buffer and the kernel's.
    ws.pause();
    writeFileSync(`/proc/${service.child.pid}/clear_refs`, '5');
    const before = status('VmRSS');
    const started = Date.now();
    const flush = JSON.stringify({ type: 'flush', context_id: 'c' });
    let sent = 0;
    // Send while our own buffer is small (what the server does not read stays here), until it drops us.
    while (!closed && Date.now() - started < CUT_WITHIN_MS) {
      if (ws.readyState !== WebSocket.OPEN) break;
      if (ws.bufferedAmount < 4 * 1024 * 1024) {
        for (let i = 0; i < 2000; i++) ws.send(flush);
        sent += 2000;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    ws.resume();
    const deadline = Date.now() + 5000;
    while (!closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const seconds = (Date.now() - started) / 1000;
    const riseMib = Math.round((status('VmHWM') - before) / 102.4) / 10;
    process.stdout.write(`# ${sent} flushes sent; dropped: ${closed} after ${seconds.toFixed(1)} s; peak RSS +${riseMib} MiB\n`);
    assert.ok(closed, `still connected after ${seconds} s`);
    assert.ok(riseMib < RSS_BOUND_MIB, `peak RSS rose ${riseMib} MiB`);
    // The child's log reaches us through a pipe, which may lag behind the connection's end.
    const logDeadline = Date.now() + 5000;
    while (!service.output().includes('stream client takes none of its replies') && Date.now() < logDeadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(service.output().includes('stream client takes none of its replies'), 'dropped for its unread replies');
    // The server still serves.
    assert.equal((await fetch(`${service.base}/healthz`)).status, 200);
  });
});
