// The synthesis cache through the real server: an identical request is answered with the same bytes (and word
// timings) without a worker, is still counted as usage, shows in /metrics, never crosses owners of their own
// voices, stays within CACHE_MB; dashboard previews come from it and are not billed.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { previewText } from '../../src/schemas/previews.ts';
import { wavSampleCount } from '../audio/signals.ts';
import { metricValue } from '../helpers/metrics.ts';
import { useService } from '../helpers/fixture.ts';
import { StreamClient, type StreamMsg } from '../helpers/ws-client.ts';

const CACHE_MB = 1;

const s = useService({ env: { CACHE_MB: String(CACHE_MB) } });

const metric = (name: string): Promise<number> => metricValue(s, name);

const hits = () => metric('voxsmith_synthesis_cache_hits_total');
const misses = () => metric('voxsmith_synthesis_cache_misses_total');

async function speakBytes(auth: { bearer?: string; cookie?: string }, body: Record<string, unknown>): Promise<Buffer> {
  const res = await s.request('/v1/speak', { json: body, ...auth, ...(auth.cookie ? { sameOrigin: true } : {}) });
  assert.equal(res.status, 200, await res.clone().text());
  return Buffer.from(await res.arrayBuffer());
}

async function usageOf(cookie: string): Promise<{ characters: number; requests: number }> {
  const usage = (await (await s.request('/api/usage', { cookie })).json()) as { days: Array<{ characters: number; requests: number }> };
  return usage.days.reduce((t, d) => ({ characters: t.characters + d.characters, requests: t.requests + d.requests }), {
    characters: 0,
    requests: 0,
  });
}

describe('synthesis cache', () => {
  test('an identical request is a hit: byte-identical audio, counted as usage again, the hit counter rises', async () => {
    const { key, cookie } = await s.newKey('cache-hit@example.com');
    const body = { text: 'The cache keeps this sentence.', voice_id: 'flite-slt', format: 'wav' };
    const h0 = await hits();
    const m0 = await misses();
    const first = await speakBytes({ bearer: key }, body);
    assert.equal(await hits(), h0);
    assert.equal(await misses(), m0 + 1);
    const second = await speakBytes({ bearer: key }, body);
    assert.equal(await hits(), h0 + 1);
    assert.ok(wavSampleCount(first) > 8000, 'real speech');
    assert.ok(first.equals(second), 'the cached answer is the same bytes');
    assert.deepEqual(await usageOf(cookie), { characters: body.text.length * 2, requests: 2 });
    assert.ok((await metric('voxsmith_synthesis_cache_bytes')) >= first.length);
    assert.ok((await metric('voxsmith_synthesis_cache_hit_ratio')) > 0);

    // Any option that changes the audio is another entry.
    await speakBytes({ bearer: key }, { ...body, speed: 1.5 });
    await speakBytes({ bearer: key }, { ...body, format: 'mp3' });
    await speakBytes({ bearer: key }, { ...body, voice_id: 'flite-awb' });
    assert.equal(await hits(), h0 + 1);
  });

  test('the WebSocket replays a cached answer with its audio and word timings, and the other doors share it', async () => {
    const { key } = await s.newKey('cache-ws@example.com');
    const ask = async (): Promise<StreamMsg[]> => {
      const c = await StreamClient.open(`${s.base.replace('http', 'ws')}/v1/ws/stream?token=${key}`, { timeoutMs: Infinity });
      c.send({ type: 'synthesize', text: 'Words are timed, cached or not.', voice_id: 'espeak-en-us-male-1' });
      await c.until((m) => m.type === 'done' || m.type === 'error');
      c.close();
      return c.messages;
    };
    const h0 = await hits();
    const first = await ask();
    const second = await ask();
    assert.equal(await hits(), h0 + 1);
    assert.equal(first.at(-1)?.type, 'done');
    assert.ok(
      first.some((m) => (m.words?.length ?? 0) > 0),
      'the stream carries word timings',
    );
    assert.deepEqual(second, first);

    // /v1/speak and /v1/audio/speech ask the same of the service: one cache for both doors.
    const text = 'Both doors, one cache.';
    const a = await speakBytes({ bearer: key }, { text, voice_id: 'default', format: 'wav' });
    const h1 = await hits();
    const res = await s.request('/v1/audio/speech', {
      json: { model: 'tts-1', voice: 'default', input: text, response_format: 'wav' },
      bearer: key,
    });
    assert.equal(res.status, 200);
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(a));
    assert.equal(await hits(), h1 + 1);
  });

  test("one owner's voice is never served from another owner's cached answer", async () => {
    const x = await s.newKey('cache-owner-x@example.com');
    const y = await s.newKey('cache-owner-y@example.com');
    // The same parents, rate and seed give both users the same genome: identical audio, different owners.
    const breed = { parent_a: 'espeak-en-us-male-1', parent_b: 'espeak-en-gb-female-1', name: 'Twin', mutation_rate: 0.1, seed: 7 };
    const bred = async (key: string) => {
      const res = await s.request('/v1/forge/breed', { json: breed, bearer: key });
      assert.equal(res.status, 201, await res.clone().text());
      return ((await res.json()) as { voice: { id: string } }).voice.id;
    };
    const vx = await bred(x.key);
    const vy = await bred(y.key);
    const text = 'Only my owner hears me from the cache.';
    const h0 = await hits();
    await speakBytes({ bearer: x.key }, { text, voice_id: vx, format: 'wav' });
    await speakBytes({ bearer: y.key }, { text, voice_id: vy, format: 'wav' });
    assert.equal(await hits(), h0, 'no hit across owners');
    // Nor can Y name X's voice: it is unknown to Y, cached or not.
    const res = await s.request('/v1/speak', { json: { text, voice_id: vx, format: 'wav' }, bearer: y.key });
    assert.equal(res.status, 404);
    await speakBytes({ bearer: x.key }, { text, voice_id: vx, format: 'wav' });
    assert.equal(await hits(), h0 + 1, 'the owner hits their own entry');
  });

  test(`the cache stays within CACHE_MB (${CACHE_MB}): the least recently used answer is evicted`, async () => {
    const { key } = await s.newKey('cache-evict@example.com');
    // About 100-200 KB of WAV each: a dozen of them cannot all fit in 1 MiB.
    const texts = Array.from({ length: 12 }, (_, i) => `Eviction sample number ${i + 1} is spoken for a couple of seconds.`);
    for (const text of texts) await speakBytes({ bearer: key }, { text, voice_id: 'espeak-en-us-male-1', format: 'wav' });
    assert.ok((await metric('voxsmith_synthesis_cache_bytes')) <= CACHE_MB * 1024 * 1024);
    assert.equal(await metric('voxsmith_synthesis_cache_max_bytes'), CACHE_MB * 1024 * 1024);
    const h0 = await hits();
    await speakBytes({ bearer: key }, { text: texts.at(-1), voice_id: 'espeak-en-us-male-1', format: 'wav' });
    assert.equal(await hits(), h0 + 1, 'the newest is still there');
    await speakBytes({ bearer: key }, { text: texts[0], voice_id: 'espeak-en-us-male-1', format: 'wav' });
    assert.equal(await hits(), h0 + 1, 'the oldest was evicted: rendered again');
  });
});

describe('dashboard voice previews', () => {
  test('a preview is the fixed line of the voice’s language, from the cache, and not billed', async () => {
    const { cookie } = await s.signIn('preview@example.com');
    const h0 = await hits();
    const preview = async (path: string) => {
      const res = await s.request(path, { cookie });
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal(res.headers.get('content-type'), 'audio/mpeg');
      return Buffer.from(await res.arrayBuffer());
    };
    const first = await preview('/api/voices/espeak-de-female-1/preview');
    const second = await preview('/api/voices/espeak-de-female-1/preview');
    assert.ok(first.length > 1000);
    assert.ok(first.equals(second));
    assert.equal(await hits(), h0 + 1, 'the second click is a cache hit');
    assert.deepEqual(await usageOf(cookie), { characters: 0, requests: 0 }, 'previews are not usage');

    // What it spoke is the German preview line: the same request through /v1/speak is that entry (and is billed).
    const line = previewText({ language: 'de-DE' });
    const spoken = await speakBytes({ cookie }, { text: line, voice_id: 'espeak-de-female-1', format: 'mp3' });
    assert.ok(spoken.equals(first));
    assert.equal(await hits(), h0 + 2);
    assert.deepEqual(await usageOf(cookie), { characters: line.length, requests: 1 });

    // `language` picks another fixed line; no text of the caller's choosing gets through.
    const english = await preview('/api/voices/espeak-de-female-1/preview?language=en');
    assert.ok(!english.equals(first));
    const smuggled = await preview('/api/voices/espeak-de-female-1/preview?language=en&text=Say%20anything%20I%20like');
    assert.ok(smuggled.equals(english));
  });

  test('previews are for a session or a key (as ElevenLabs clients fetch preview_url), not billed, only of voices the user may use', async () => {
    const { key, cookie: owner } = await s.newKey('preview-key@example.com');
    const withKey = await s.request('/api/voices/flite-slt/preview', { headers: { 'xi-api-key': key } });
    assert.equal(withKey.status, 200);
    assert.equal(withKey.headers.get('content-type'), 'audio/mpeg');
    assert.ok((await withKey.arrayBuffer()).byteLength > 1000);
    assert.deepEqual(await usageOf(owner), { characters: 0, requests: 0 }, 'previews are not usage');
    const anonymous = await s.request('/api/voices/flite-slt/preview');
    assert.equal(anonymous.status, 401);
    const { cookie } = await s.signIn('preview-other@example.com');
    const unknown = await s.request('/api/voices/no-such-voice/preview', { cookie });
    assert.equal(unknown.status, 404);
  });
});
