// One key could once send 20 parallel 10 MiB clones, all accepted and queued: storage and analysis without bound.
// Voices and stored sample bytes per account are capped atomically (parallel requests at the boundary produce
// exactly the cap, on SQLite and PostgreSQL), and the analysis queue is bounded (503 busy with Retry-After).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_WAITING_UPLOADS } from '../../src/forge/forge-pool.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { recordSpeaker, SKIP_NO_SPEAKERS, uploadClone } from './helpers.ts';
import { pcm16Wav } from '../audio/signals.ts';

interface ErrorReply {
  code: string;
  error: string;
}

const ownVoices = async (s: TestServer, key: string): Promise<number> =>
  ((await (await s.request('/api/voices', { bearer: key })).json()) as { voices: Array<{ source: string }> }).voices.filter(
    (v) => v.source !== 'builtin',
  ).length;

describe('MAX_VOICES_PER_USER', () => {
  const CAP = 3;
  let s: TestServer;
  let key: string;
  before(async () => {
    s = await startServer({ env: { MAX_VOICES_PER_USER: String(CAP) } });
    ({ key } = await s.newKey('quota-voices@example.com'));
  });
  after(async () => {
    await s.close();
  });

  test('parallel breeds at the boundary make exactly the cap; the rest are 403 quota_exceeded', async () => {
    const replies = await Promise.all(
      Array.from({ length: CAP + 5 }, (_, i) =>
        s.request('/v1/forge/breed', {
          json: { parent_a: 'espeak-en-us-male-2', parent_b: 'espeak-en-us-female-1', name: `child ${i}`, seed: i + 1 },
          bearer: key,
        }),
      ),
    );
    const statuses = replies.map((r) => r.status);
    assert.equal(statuses.filter((st) => st === 201).length, CAP, statuses.join(','));
    assert.equal(statuses.filter((st) => st === 403).length, 5, statuses.join(','));
    for (const r of replies.filter((x) => x.status === 403)) {
      const body = (await r.json()) as ErrorReply;
      assert.equal(body.code, 'quota_exceeded');
      assert.match(body.error, /MAX_VOICES_PER_USER/);
    }
    assert.equal(await ownVoices(s, key), CAP);
    // Another account has its own quota.
    const other = (await s.newKey('quota-other@example.com')).key;
    const res = await s.request('/v1/forge/breed', {
      json: { parent_a: 'espeak-en-us-male-2', parent_b: 'espeak-en-us-female-1', name: 'theirs' },
      bearer: other,
    });
    assert.equal(res.status, 201);
  });
});

describe('MAX_SAMPLE_BYTES_PER_USER', { skip: SKIP_NO_SPEAKERS }, () => {
  let s: TestServer;
  let key: string;
  let sample: Buffer;
  before(async () => {
    sample = recordSpeaker('flite-slt');
    // Room for one sample, not two.
    s = await startServer({ env: { MAX_SAMPLE_BYTES_PER_USER: String(Math.round(sample.length * 1.5)) } });
    ({ key } = await s.newKey('quota-bytes@example.com'));
  });
  after(async () => {
    await s.close();
  });

  test('two parallel clones with room for one sample: one 201, one 403 quota_exceeded', async () => {
    const replies = await Promise.all([uploadClone(s, key, sample, { name: 'first' }), uploadClone(s, key, sample, { name: 'second' })]);
    const statuses = replies.map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, 403]);
    const refused = replies.find((r) => r.status === 403) as Response;
    const body = (await refused.json()) as ErrorReply;
    assert.equal(body.code, 'quota_exceeded');
    assert.match(body.error, /MAX_SAMPLE_BYTES_PER_USER/);
    assert.equal(await ownVoices(s, key), 1);
  });
});

/** `seconds` of quiet noise as 16-bit mono WAV: decoded and measured in full, then refused as not speech. */
function noiseWav(seconds: number, rate = 16_000): Uint8Array {
  let x = 1;
  return pcm16Wav(
    Array.from({ length: seconds * rate }, () => {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      return (x % 200) - 100;
    }),
    rate,
  );
}

describe('bounded analysis queue', () => {
  let s: TestServer;
  let key: string;
  before(async () => {
    s = await startServer();
    ({ key } = await s.newKey('quota-busy@example.com'));
  });
  after(async () => {
    await s.close();
  });

  test(`past ${MAX_WAITING_UPLOADS} waiting uploads a clone is 503 busy with Retry-After, and the server still answers`, async () => {
    const wav = noiseWav(20);
    const replies = await Promise.all(
      Array.from({ length: MAX_WAITING_UPLOADS + 8 }, (_, i) => uploadClone(s, key, wav, { name: `noise ${i}` })),
    );
    const busy = replies.filter((r) => r.status === 503);
    assert.ok(busy.length >= 1, replies.map((r) => r.status).join(','));
    for (const r of busy) {
      assert.ok(Number(r.headers.get('retry-after')) > 0);
      assert.equal(((await r.json()) as ErrorReply).code, 'busy');
    }
    // The first one analysing and the bound waiting are always let through.
    assert.ok(replies.length - busy.length >= MAX_WAITING_UPLOADS + 1, replies.map((r) => r.status).join(','));
    for (const r of replies) assert.ok(r.status === 503 || (r.status >= 400 && r.status < 500), String(r.status));
    assert.equal((await s.request('/healthz')).status, 200);
  });
});
