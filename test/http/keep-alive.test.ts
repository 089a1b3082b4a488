// Issue 44, C1: a client's request met a connection the server had just closed ("other side closed", nothing
// logged), because an idle keep-alive connection was closed at the very moment its advertised timeout ran out.
// A client whose timer or event loop runs late under CPU load (or that was busy in a synchronous call) reuses
// it a little after that moment. The server now holds idle connections well past what it advertises.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import { keepAliveHeldMs } from '../../src/http/keep-alive.ts';
import { useService } from '../helpers/fixture.ts';

const ADVERTISED_MS = 1_000;
/** How late the client is: past Node's own 1 s of grace after the advertised timeout, within ours. */
const LATE_MS = 1_500;

/** Reads one HTTP response (headers and a Content-Length body) from a kept-alive socket. */
function readResponse(socket: Socket): Promise<{ head: string; body: string }> {
  return new Promise((resolve, reject) => {
    let data = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      data = Buffer.concat([data, chunk]);
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = data.subarray(0, end).toString('latin1');
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (data.length < end + 4 + length) return;
      cleanup();
      resolve({ head, body: data.subarray(end + 4, end + 4 + length).toString('utf8') });
    };
    const onClose = (): void => {
      cleanup();
      reject(new Error(`connection closed by the server before an answer (${data.length} bytes read)`));
    };
    const cleanup = (): void => {
      socket.off('data', onData);
      socket.off('close', onClose);
    };
    socket.on('data', onData);
    socket.on('close', onClose);
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('idle keep-alive connections are held past the timeout they advertise', () => {
  const s = useService({ user: 'keep-alive@example.com', env: { KEEP_ALIVE_TIMEOUT_MS: String(ADVERTISED_MS) } });

  test('a request sent just after the advertised timeout, on the same connection, is answered', async () => {
    const url = new URL(s.base);
    const socket = connect(Number(url.port), url.hostname);
    socket.on('error', () => {});
    try {
      await new Promise<void>((r) => socket.once('connect', () => r()));
      socket.write(`GET /healthz HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
      const first = await readResponse(socket);
      assert.match(first.head, /^HTTP\/1\.1 200 /);
      assert.match(first.head, /keep-alive: timeout=1\b/i, 'the advertised timeout stays what KEEP_ALIVE_TIMEOUT_MS says');
      // A client late by 1.5 s against the advertised end: Node's own grace is 1 s, so the old server had closed it.
      await sleep(ADVERTISED_MS + LATE_MS);
      assert.equal(socket.destroyed, false);
      socket.write(`GET /healthz HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
      const second = await readResponse(socket);
      assert.match(second.head, /^HTTP\/1\.1 200 /);
    } finally {
      socket.destroy();
    }
  });

  // The server process got no core while a request came in, just as the idle timeout fell due: the turn after,
  // Node ran the timer before reading the socket and closed the connection with the request unread. Here the
  // client runs on a thread of its own and the server's event loop (this thread) is held in a busy wait across
  // the moment its timer falls due, with the request sent in the middle of it.
  test('a request that arrives while the server is held up, as its idle timer falls due, is answered', async () => {
    const heldMs = keepAliveHeldMs(ADVERTISED_MS);
    const url = new URL(s.base);
    const client = new Worker(CLIENT_THREAD, { eval: true, workerData: { port: Number(url.port), host: url.host, sendAfterMs: heldMs } });
    try {
      const answered = new Promise<string>((resolve, reject) => {
        client.on('message', (m: { kind: string; text?: string }) => {
          if (m.kind === 'first') {
            // Held from 2 s before the server's deadline to 2 s after it; the client sends at the deadline.
            setTimeout(() => setImmediate(() => busyWait(4_000)), heldMs - 2_000);
          } else if (m.kind === 'second') resolve(m.text ?? '');
          else reject(new Error(m.text));
        });
        client.on('error', reject);
      });
      assert.match(await answered, /^HTTP\/1\.1 200 /);
    } finally {
      await client.terminate();
    }
  });
});

/** Holds this thread (the server's event loop) like a process that gets no core. */
function busyWait(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

/** The client: one request, then a second on the same connection `sendAfterMs` after the first answer. */
const CLIENT_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { connect } = require('node:net');
const { port, host, sendAfterMs } = workerData;
const socket = connect(port, '127.0.0.1');
let data = '';
let phase = 'first';
const request = 'GET /healthz HTTP/1.1\\r\\nHost: ' + host + '\\r\\n\\r\\n';
socket.on('error', () => {});
socket.on('connect', () => socket.write(request));
socket.on('data', (chunk) => {
  data += chunk.toString('latin1');
  const end = data.indexOf('\\r\\n\\r\\n');
  if (end < 0) return;
  const length = Number((/content-length: *(\\d+)/i.exec(data.slice(0, end)) || [])[1] || 0);
  if (data.length < end + 4 + length) return;
  const head = data.slice(0, end);
  data = '';
  if (phase === 'first') {
    phase = 'second';
    parentPort.postMessage({ kind: 'first' });
    setTimeout(() => socket.write(request), sendAfterMs);
  } else {
    phase = 'done';
    parentPort.postMessage({ kind: 'second', text: head });
  }
});
socket.on('close', () => {
  if (phase !== 'done') parentPort.postMessage({ kind: 'closed', text: 'connection closed by the server before an answer (' + phase + ' request)' });
});
`;
