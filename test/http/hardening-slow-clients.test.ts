import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { useService } from '../helpers/fixture.ts';

// A slow client must not hold a connection: a body trickled one byte every 5 s once kept its connection open for
// minutes, and slow headers got a 408 only after ~60 s, with an empty body.

/** A raw connection that records what the server wrote and when it closed. */
function open(base: string): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () =>
      resolve({ socket, received: () => Buffer.concat(chunks).toString('utf8'), closed }),
    );
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {});
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    socket.once('error', reject);
  });
}

/** Writes one byte at a time until the server closes the connection; throws if it never does. */
async function trickle(conn: Awaited<ReturnType<typeof open>>, head: string): Promise<void> {
  conn.socket.write(head);
  let closed = false;
  void conn.closed.then(() => (closed = true));
  // A generous liveness bound: the configured timeout is 1 s, the test gives it 30.
  for (let i = 0; i < 300 && !closed; i++) {
    if (conn.socket.writable) conn.socket.write('a');
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(closed, 'the server closed the slow connection');
}

function envelopeOf(text: string, status: number): { error: string; code: string; request_id: string } {
  const [head, body] = text.split('\r\n\r\n');
  assert.match(head, new RegExp(`^HTTP/1\\.1 ${status} `), head);
  assert.match(head, /content-type: application\/json/i);
  const parsed = JSON.parse(body) as { error: string; code: string; request_id: string };
  assert.ok(parsed.request_id);
  assert.equal(typeof parsed.error, 'string');
  return parsed;
}

describe('slow clients are cut', () => {
  const s = useService({ env: { HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '1000', KEEP_ALIVE_TIMEOUT_MS: '500' } });

  test('a body trickled a byte at a time gets 408 in the envelope and the connection is closed', async () => {
    const conn = await open(s.base);
    await trickle(
      conn,
      'POST /api/auth/logout HTTP/1.1\r\nHost: voxsmith.test\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n',
    );
    const { request_id: id } = envelopeOf(conn.received(), 408);
    // The server's log says which bound closed the connection, as a warning (issue 44, C1).
    const line = s.logs
      .flatMap((chunk) => chunk.split('\n').filter((l) => l.includes(id)))
      .map((l) => JSON.parse(l) as { level: number; code?: string })[0];
    assert.deepEqual([line?.level, line?.code], [40, 'request_timeout']);
  });

  test('headers trickled a byte at a time get 408 in the envelope', async () => {
    const conn = await open(s.base);
    await trickle(conn, 'GET /healthz HTTP/1.1\r\nHost: voxsmith.test\r\nX-Slow: ');
    assert.equal(envelopeOf(conn.received(), 408).code, 'request_timeout');
  });

  test('an idle keep-alive connection is closed; the server still answers', async () => {
    const conn = await open(s.base);
    conn.socket.write('GET /healthz HTTP/1.1\r\nHost: voxsmith.test\r\n\r\n');
    const bound = new Promise<'open'>((r) => setTimeout(() => r('open'), 30_000).unref());
    assert.equal(await Promise.race([conn.closed.then(() => 'closed' as const), bound]), 'closed');
    assert.match(conn.received(), /^HTTP\/1\.1 200 /);
    assert.equal((await s.request('/healthz')).status, 200);
  });
});

describe('a client that never reads its speech loses its synthesis slot', () => {
  // One synthesis at a time on the whole server: whoever holds it blocks everyone.

  const s = useService({ env: { WORKERS: '1', SYNTHESIS_SLOTS_PER_WORKER: '1', CACHE_MB: '0' } });

  test('its connection is cut within the write-stall timeout, and another key’s sentence is served', async () => {
    const hog = await s.newKey('hog@example.com');
    const other = await s.newKey('other@example.com');
    // ~11 minutes of 16-bit audio (30 MB): far more than the socket buffers between us hold.
    const text = 'The quick brown fox jumps over the lazy dog, and then it runs far away into the woods. '.repeat(110);
    const body = JSON.stringify({ text, voice_id: 'flite-slt', format: 'pcm' });
    const conn = await open(s.base);
    conn.socket.pause();
    conn.socket.write(
      `POST /v1/speak HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${hog.key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    // Its synthesis has the one slot once audio is flowing into the buffers it never empties.
    await new Promise((r) => setTimeout(r, 1500));
    const started = Date.now();
    const res = await s.request('/v1/speak', { json: { text: 'Hello there.', voice_id: 'flite-slt', format: 'pcm' }, bearer: other.key });
    assert.equal(res.status, 200);
    assert.ok((await res.arrayBuffer()).byteLength > 24_000);
    const waited = (Date.now() - started) / 1000;
    process.stdout.write(`# another key's sentence waited ${waited.toFixed(1)} s behind a client that never reads\n`);
    // The stall timeout is 10 s; generous for two shared cores (the worker's own give-up came after 120 s).
    assert.ok(waited < 40, `${waited} s`);
    // The hog's connection was cut by the server: reading it now ends at once.
    conn.socket.resume();
    await Promise.race([conn.closed, new Promise((_, reject) => setTimeout(() => reject(new Error('hog connection still open')), 10_000))]);
    assert.ok(s.logs.join('').includes('client took no audio; connection cut'));
  });
});
