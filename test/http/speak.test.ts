import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { measurePitch, measureSpeakingRate } from '../../src/audio/analysis.ts';
import { ffmpegDecode, probe, SKIP_NO_FFMPEG, TempDir } from '../audio/ffmpeg.ts';
import { startServer } from '../helpers/server.ts';
import { useService } from '../helpers/fixture.ts';
import { assertStatus } from '../helpers/responses.ts';

const s = useService({ user: 'speaker@example.com' });
const tmp = new TempDir();
after(async () => {
  tmp.remove();
});

const TEXT = 'The quick brown fox jumps over the lazy dog. Then it runs into the forest.';

async function speak(body: Record<string, unknown>, bearer = s.key): Promise<Response> {
  return s.request('/v1/speak', { json: body, bearer });
}

async function audio(body: Record<string, unknown>): Promise<{ bytes: Uint8Array; type: string; headers: Headers }> {
  const res = await speak(body);
  await assertStatus(res, 200);
  return { bytes: new Uint8Array(await res.arrayBuffer()), type: res.headers.get('content-type') ?? '', headers: res.headers };
}

function rms(x: Float32Array): number {
  let sum = 0;
  for (const v of x) sum += v * v;
  return Math.sqrt(sum / Math.max(1, x.length));
}

describe('/v1/speak: formats, decoded by ffmpeg', { skip: SKIP_NO_FFMPEG }, () => {
  let reference = 0;
  before(async () => {
    const wav = await audio({ text: TEXT, format: 'wav' });
    reference = probe(tmp.file('ref.wav', wav.bytes)).duration ?? 0;
    assert.ok(reference > 2 && reference < 10, `reference duration ${reference}`);
  });

  const cases = [
    { format: 'mp3', type: 'audio/mpeg', codec: 'mp3', rate: 24000, ext: 'mp3' },
    { format: 'wav', type: 'audio/wav', codec: 'pcm_s16le', rate: 24000, ext: 'wav' },
    { format: 'opus', type: 'audio/ogg', codec: 'opus', rate: 48000, ext: 'ogg' },
    { format: 'flac', type: 'audio/flac', codec: 'flac', rate: 24000, ext: 'flac' },
    { format: 'mulaw', type: 'audio/wav', codec: 'pcm_mulaw', rate: 8000, ext: 'wav' },
    { format: 'alaw', type: 'audio/wav', codec: 'pcm_alaw', rate: 8000, ext: 'wav' },
  ] as const;
  for (const c of cases) {
    test(`${c.format}: ${c.type}, decodes cleanly, right duration`, async () => {
      const { bytes, type } = await audio({ text: TEXT, format: c.format });
      assert.equal(type, c.type);
      const path = tmp.file(`speech-${c.format}.${c.ext}`, bytes);
      const info = probe(path);
      assert.equal(info.codec, c.codec);
      assert.equal(info.sampleRate, c.rate);
      assert.equal(info.channels, 1);
      // A streamed FLAC's STREAMINFO cannot know its length yet (docs/api.md): it says 0 samples, ffprobe no duration;
      // every other format's header or size gives one. The decoded length below is checked for all of them.
      if (c.format === 'flac') assert.equal(info.duration, undefined, 'a streamed FLAC states no length');
      else {
        assert.ok(info.duration !== undefined, 'ffprobe reports a duration');
        // Engines vary by a few ms between renders; codecs add at most a frame of padding.
        assert.ok(Math.abs(info.duration - reference) < 0.12, `${c.format} ${info.duration} vs wav ${reference}`);
      }
      const samples = ffmpegDecode(path, { rate: 24000 });
      assert.ok(Math.abs(samples.length / 24000 - reference) < 0.12);
      assert.ok(rms(samples) > 0.01, 'not silent');
    });
  }

  test('pcm: raw 16-bit mono at 24 kHz, rate stated in a header', async () => {
    const { bytes, type, headers } = await audio({ text: TEXT, format: 'pcm' });
    assert.equal(type, 'audio/pcm');
    assert.equal(headers.get('x-sample-rate'), '24000');
    assert.equal(bytes.length % 2, 0);
    const path = tmp.file('speech.pcm', bytes);
    const samples = ffmpegDecode(path, { inputArgs: ['-f', 's16le', '-ar', '24000', '-ac', '1'] });
    assert.ok(Math.abs(samples.length / 24000 - reference) < 0.12);
  });

  test('mp3 is the default format and the default voice is a female English voice', async () => {
    const { bytes, type, headers } = await audio({ text: TEXT });
    assert.equal(type, 'audio/mpeg');
    assert.equal(headers.get('x-voice-id'), 'flite-slt');
    const samples = ffmpegDecode(tmp.file('default.mp3', bytes), { rate: 24000 });
    const pitch = measurePitch(samples, 24000);
    assert.ok(pitch.medianHz > 140 && pitch.medianHz < 260, `default voice pitch ${pitch.medianHz}`);
  });
});

describe('/v1/speak: speed, voices, languages', () => {
  async function pcm(body: Record<string, unknown>): Promise<Float32Array> {
    const { bytes } = await audio({ ...body, format: 'pcm' });
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const out = new Float32Array(bytes.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = view.getInt16(i * 2, true) / 32768;
    return out;
  }

  test('speed 2 is about half as long as speed 1, speed 0.5 about twice, pitch unchanged', async () => {
    for (const voice_id of ['flite-slt', 'espeak-en-us-male-1']) {
      const normal = await pcm({ text: TEXT, voice_id, speed: 1 });
      const fast = await pcm({ text: TEXT, voice_id, speed: 2 });
      const slow = await pcm({ text: TEXT, voice_id, speed: 0.5 });
      const rFast = fast.length / normal.length;
      const rSlow = slow.length / normal.length;
      assert.ok(rFast > 0.4 && rFast < 0.65, `${voice_id}: speed 2 ratio ${rFast}`);
      assert.ok(rSlow > 1.6 && rSlow < 2.5, `${voice_id}: speed 0.5 ratio ${rSlow}`);
      const p1 = measurePitch(normal, 24000).medianHz;
      const p2 = measurePitch(fast, 24000).medianHz;
      assert.ok(Math.abs(12 * Math.log2(p2 / p1)) < 2, `${voice_id}: pitch moved from ${p1} to ${p2}`);
      assert.ok(measureSpeakingRate(fast, 24000).syllablesPerSecond > measureSpeakingRate(normal, 24000).syllablesPerSecond);
    }
  });

  for (const [voice_id, text] of [
    ['espeak-de-female-1', 'Guten Morgen. Wie geht es Ihnen heute? Ich habe 25 Äpfel gekauft.'],
    ['espeak-fr-male-1', 'Bonjour tout le monde. Il fait très beau aujourd’hui à Paris.'],
    ['espeak-es-female-1', 'Buenos días. Mañana vamos a la playa con mis amigos.'],
    ['espeak-cmn-male-1', '你好，今天天气很好。我们去公园散步吧。'],
  ] as const) {
    test(`${voice_id} speaks`, async () => {
      const samples = await pcm({ text, voice_id });
      const seconds = samples.length / 24000;
      assert.ok(seconds > 1.2 && seconds < 12, `${voice_id}: ${seconds} s`);
      assert.ok(rms(samples) > 0.02, 'not silent');
      assert.ok(measurePitch(samples, 24000).voicedFraction > 0.2, 'voiced speech');
    });
  }

  test('female and male voices of one language differ in pitch the right way', async () => {
    const f = measurePitch(await pcm({ text: 'Guten Morgen, wie geht es dir?', voice_id: 'espeak-de-female-1' }), 24000).medianHz;
    const m = measurePitch(await pcm({ text: 'Guten Morgen, wie geht es dir?', voice_id: 'espeak-de-male-1' }), 24000).medianHz;
    assert.ok(f > m * 1.3, `female ${f} Hz vs male ${m} Hz`);
  });

  test('long text streams: bytes arrive before synthesis ends and the whole text is spoken', async () => {
    const long = Array.from({ length: 12 }, (_, i) => `This is sentence number ${i + 1} of a longer text.`).join(' ');
    const res = await speak({ text: long, format: 'pcm', voice_id: 'espeak-en-us-male-1' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-length'), null, 'chunked, not buffered');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let chunks = 0;
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks++;
      total += value.length;
    }
    assert.ok(chunks > 3, `arrived in ${chunks} chunks`);
    assert.ok(total / 2 / 24000 > 15, `${total / 48000} s of speech for 12 sentences`);
  });

  test('usage is metered per key', async () => {
    const { key: k, id, cookie } = await s.newKey('meter@example.com');
    await (await speak({ text: 'Count these characters.', format: 'wav' }, k)).arrayBuffer();
    const usage = (await (await s.request('/api/usage', { cookie })).json()) as {
      plan: string;
      keys: Array<{ key_id: string; characters: number; requests: number }>;
    };
    assert.equal(usage.plan, 'free');
    const row = usage.keys.find((r) => r.key_id === id);
    assert.equal(row?.characters, 'Count these characters.'.length);
    assert.equal(row?.requests, 1);
  });
});

describe('/v1/speak: errors', () => {
  const cases: Array<[string, Record<string, unknown>, number]> = [
    ['missing text', { voice_id: 'default' }, 400],
    ['empty text', { text: '' }, 400],
    ['blank text', { text: '   \n ' }, 400],
    ['text not a string', { text: 42 }, 400],
    ['unknown format', { text: 'hi', format: 'aac' }, 400],
    ['speed too low', { text: 'hi', speed: 0.1 }, 400],
    ['speed too high', { text: 'hi', speed: 5 }, 400],
    ['speed not a number', { text: 'hi', speed: 'fast' }, 400],
    ['speed as a numeric string', { text: 'hi', speed: '2' }, 400],
    ['unknown voice', { text: 'hi', voice_id: 'no-such-voice' }, 404],
    ['path-like voice', { text: 'hi', voice_id: '../../etc/passwd' }, 404],
    ['text too long', { text: 'a'.repeat(10_001) }, 413],
  ];
  for (const [name, body, status] of cases) {
    test(`${name} → ${status} {error}`, async () => {
      const res = await speak(body);
      assert.equal(res.status, status);
      const json = (await res.json()) as { error: unknown };
      assert.equal(typeof json.error, 'string');
    });
  }

  test('no key → 401; revoked key → 401', async () => {
    assert.equal((await s.request('/v1/speak', { json: { text: 'hi' } })).status, 401);
    const { key: k, id, cookie } = await s.newKey('revoked-speaker@example.com');
    await s.request('/api/auth/api-keys', { method: 'DELETE', json: { key_id: id }, cookie, sameOrigin: true });
    assert.equal((await speak({ text: 'hi' }, k)).status, 401);
  });

  test('a session may speak, but only from our origin', async () => {
    const { cookie } = await s.signIn('browser-speaker@example.com');
    assert.equal((await s.request('/v1/speak', { json: { text: 'hi', format: 'wav' }, cookie })).status, 403);
    const ok = await s.request('/v1/speak', { json: { text: 'hi', format: 'wav' }, cookie, sameOrigin: true });
    assert.equal(ok.status, 200);
    await ok.arrayBuffer();
  });

  test('hanging up cancels the synthesis and frees the worker', async () => {
    const long = Array.from({ length: 60 }, (_, i) => `Sentence ${i + 1} keeps the worker busy for a while longer.`).join(' ');
    const controller = new AbortController();
    const res = await fetch(`${s.base}/v1/speak`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${s.key}` },
      body: JSON.stringify({ text: long, format: 'pcm', voice_id: 'espeak-en-us-male-1' }),
      signal: controller.signal,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    controller.abort();
    const deadline = Date.now() + 10_000;
    while (s.app.services.synthesizer.stats().running > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(s.app.services.synthesizer.stats().running, 0, 'no job left running');
    const next = await speak({ text: 'Still working.', format: 'wav' });
    assert.equal(next.status, 200);
    await next.arrayBuffer();
  });

  test('over RATE_LIMIT_PER_MINUTE → 429 with Retry-After', async () => {
    const limited = await startServer({ env: { RATE_LIMIT_PER_MINUTE: '2' } });
    try {
      const { key: k } = await limited.newKey('limited@example.com');
      const statuses: number[] = [];
      let retry = '';
      for (let i = 0; i < 3; i++) {
        const res = await limited.request('/v1/speak', { json: { text: 'Hi.', format: 'wav' }, bearer: k });
        statuses.push(res.status);
        if (res.status === 429) {
          retry = res.headers.get('retry-after') ?? '';
          assert.equal(typeof ((await res.json()) as { error: unknown }).error, 'string');
        } else await res.arrayBuffer();
      }
      assert.deepEqual(statuses, [200, 200, 429]);
      assert.match(retry, /^[1-9]\d*$/);
    } finally {
      await limited.close();
    }
  });
});
