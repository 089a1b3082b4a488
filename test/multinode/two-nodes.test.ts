import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import type { ServiceProcess } from '../helpers/process.ts';
import type { SmtpSink } from '../helpers/smtp-sink.ts';
import { callNode, startTwoNodes, type TwoNodes } from '../helpers/two-nodes.ts';

// Two real service processes behind "one address": the same PostgreSQL schema and Redis prefix, nothing
// else in common (each has its own DATA_DIR). What one node does, the other must see.
let nodes: TwoNodes;
let a: ServiceProcess;
let b: ServiceProcess;
let mail: SmtpSink;

before(async () => {
  nodes = await startTwoNodes('mn', {
    RATE_LIMIT_PER_MINUTE: '10',
    // The rate limit is what is tested across nodes here; the per-key concurrency cap (also shared) must not refuse first.
    MAX_CONCURRENT_PER_KEY: '100',
    LOGIN_RATE_LIMIT_PER_MINUTE: '1000',
    LOGIN_ADDRESS_LIMIT_PER_HOUR: '1000',
  });
  ({ a, b, mail } = nodes);
});

after(async () => {
  await nodes?.stop();
});

const call = callNode;

/** Sign-in link asked on one node, redeemed on the other; a key made with that session. */
async function keyFor(
  email: string,
  loginOn: ServiceProcess,
  verifyOn: ServiceProcess,
  keyOn: ServiceProcess,
): Promise<{ key: string; id: string; cookie: string }> {
  const before = mail.messages.length;
  assert.equal((await call(loginOn, '/api/auth/login', { json: { email } })).status, 200);
  const token = await mail.tokenFor(email, before);
  const verify = await call(verifyOn, '/api/auth/verify', { json: { token } });
  assert.equal(verify.status, 200);
  const cookie = verify.headers.getSetCookie()[0].split(';')[0];
  const created = await call(keyOn, '/api/auth/api-keys', { json: { name: 'multi' }, cookie });
  assert.equal(created.status, 201);
  const { key, id } = (await created.json()) as { key: string; id: string };
  return { key, id, cookie };
}

/** Seconds of audio in a 16-bit PCM WAV, read from its header and data chunk. */
function wavSeconds(bytes: Buffer): number {
  assert.equal(bytes.toString('ascii', 0, 4), 'RIFF');
  assert.equal(bytes.toString('ascii', 8, 12), 'WAVE');
  let offset = 12;
  let rate = 0;
  let channels = 1;
  let bits = 16;
  while (offset + 8 <= bytes.length) {
    const id = bytes.toString('ascii', offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    if (id === 'fmt ') {
      channels = bytes.readUInt16LE(offset + 10);
      rate = bytes.readUInt32LE(offset + 12);
      bits = bytes.readUInt16LE(offset + 22);
    }
    if (id === 'data') return Math.min(size, bytes.length - offset - 8) / (rate * channels * (bits / 8));
    offset += 8 + size + (size % 2);
  }
  throw new Error('no data chunk');
}

describe('two nodes sharing PostgreSQL and Redis', () => {
  test('sign in on A (link redeemed on B), create the key on A, use it on B', async () => {
    const { key } = await keyFor('multi-a@example.com', a, b, a);
    const onB = await call(b, '/api/auth/api-keys', { bearer: key });
    assert.equal(onB.status, 200);
    assert.equal(((await onB.json()) as { keys: unknown[] }).keys.length, 1);
  });

  test('revoke on B: refused on A at once, and the stream open on A is closed', async () => {
    const { key, id, cookie } = await keyFor('multi-revoke@example.com', a, a, a);
    assert.equal((await call(a, '/api/auth/api-keys', { bearer: key })).status, 200);
    const socket = new WebSocket(`${a.base.replace('http', 'ws')}/v1/ws/stream?token=${key}`);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    const closed = new Promise<{ code: number; at: number }>((resolve) =>
      socket.once('close', (code) => resolve({ code, at: performance.now() })),
    );

    const revokedAt = performance.now();
    const revoke = await call(b, '/api/auth/api-keys', { method: 'DELETE', json: { key_id: id }, cookie });
    assert.equal(revoke.status, 200);
    assert.equal((await call(a, '/api/auth/api-keys', { bearer: key })).status, 401, 'refused on A right away');

    const deadline = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the stream on A was not closed')), 5_000));
    const { code, at } = await Promise.race([closed, deadline]);
    assert.equal(code, 1008);
    process.stdout.write(`# stream on A closed ${Math.round(at - revokedAt)} ms after the revoke on B was sent\n`);
  });

  test('RATE_LIMIT_PER_MINUTE=10: 40 parallel requests spread over both nodes, exactly 10 get through', async () => {
    const { key } = await keyFor('multi-limit@example.com', a, a, b);
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => call(i % 2 ? a : b, '/v1/speak', { json: { text: 'Hi.', format: 'pcm' }, bearer: key })),
    );
    const statuses = responses.map((r) => r.status);
    await Promise.all(responses.map((r) => r.arrayBuffer()));
    assert.equal(statuses.filter((s) => s === 200).length, 10, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 429).length, 30, statuses.join(','));
    const refused = responses.find((r) => r.status === 429);
    assert.match(refused?.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  });

  test('a voice cloned on A speaks on B', async () => {
    const { key } = await keyFor('multi-clone@example.com', a, b, a);
    const sampleText =
      'The quick brown fox jumps over the lazy dog. Five boxing wizards jump quickly. How vexingly quick daft zebras jump.';
    const sampleRes = await call(a, '/v1/speak', { json: { text: sampleText, format: 'wav' }, bearer: key });
    assert.equal(sampleRes.status, 200);
    const sample = Buffer.from(await sampleRes.arrayBuffer());
    assert.ok(wavSeconds(sample) > 3, 'a sample long enough to clone');

    const form = new FormData();
    form.set('audio', new Blob([sample], { type: 'audio/wav' }), 'sample.wav');
    form.set('name', 'Made on A');
    form.set('language', 'en');
    const cloned = await call(a, '/v1/forge/clone', { body: form, bearer: key });
    assert.equal(cloned.status, 201, await cloned.clone().text());
    const { voice } = (await cloned.json()) as { voice: { id: string } };

    const spoken = await call(b, '/v1/speak', {
      json: { text: 'Hello from the other node.', voice_id: voice.id, format: 'wav' },
      bearer: key,
    });
    assert.equal(spoken.status, 200, await spoken.clone().text());
    assert.equal(spoken.headers.get('x-voice-id'), voice.id);
    const seconds = wavSeconds(Buffer.from(await spoken.arrayBuffer()));
    assert.ok(seconds > 0.5 && seconds < 10, `${seconds} s of speech`);
  });
});
