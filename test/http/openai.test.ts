// POST /v1/audio/speech driven by the official `openai` npm package, unchanged but for base URL and key.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { measurePitch } from '../../src/audio/analysis.ts';
import { ffmpegDecode, probe, SKIP_NO_FFMPEG, TempDir } from '../audio/ffmpeg.ts';
import { pcm16Samples, rms } from '../audio/signals.ts';
import { useService } from '../helpers/fixture.ts';

let openai: OpenAI;
const tmp = new TempDir();
const s = useService({ user: 'openai-user@example.com' }, async () => {
  openai = new OpenAI({ apiKey: s.key, baseURL: `${s.base}/v1`, maxRetries: 0 });
});

after(async () => {
  tmp.remove();
});

const TEXT = 'The quick brown fox jumps over the lazy dog. Then it runs into the forest.';

async function ourPcm(voice_id: string): Promise<Float32Array> {
  const res = await s.call('/v1/speak', { json: { text: TEXT, voice_id, format: 'pcm' } });
  assert.equal(res.status, 200);
  return pcm16Samples(new Uint8Array(await res.arrayBuffer()));
}

describe('OpenAI client round trip', { skip: SKIP_NO_FFMPEG }, () => {
  let reference = 0;
  before(async () => {
    reference = (await ourPcm('flite-slt')).length / 24_000;
    assert.ok(reference > 2 && reference < 10, `reference ${reference} s`);
  });

  for (const c of [
    { format: 'mp3', codec: 'mp3', ext: 'mp3', type: 'audio/mpeg' },
    { format: 'wav', codec: 'pcm_s16le', ext: 'wav', type: 'audio/wav' },
    { format: 'opus', codec: 'opus', ext: 'ogg', type: 'audio/ogg' },
    { format: 'flac', codec: 'flac', ext: 'flac', type: 'audio/flac' },
  ] as const) {
    test(`${c.format}: the SDK's response decodes to the same speech as /v1/speak`, async () => {
      const { data, response } = await openai.audio.speech
        .create({ model: 'tts-1', voice: 'alloy', input: TEXT, response_format: c.format })
        .withResponse();
      assert.equal(response.headers.get('content-type'), c.type);
      assert.equal(response.headers.get('x-voice-id'), 'flite-slt');
      const bytes = new Uint8Array(await data.arrayBuffer());
      const path = tmp.file(`openai.${c.ext}`, bytes);
      const info = probe(path);
      assert.equal(info.codec, c.codec);
      assert.equal(info.channels, 1);
      const samples = ffmpegDecode(path, { rate: 24_000 });
      assert.ok(Math.abs(samples.length / 24_000 - reference) < 0.12, `${c.format}: ${samples.length / 24_000} s vs ${reference} s`);
      assert.ok(rms(samples) > 0.01, 'not silent');
    });
  }

  test('pcm is raw 16-bit little-endian mono at 24 kHz, like OpenAI’s', async () => {
    const res = await openai.audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'alloy', input: TEXT, response_format: 'pcm' });
    const samples = pcm16Samples(new Uint8Array(await res.arrayBuffer()));
    assert.ok(Math.abs(samples.length / 24_000 - reference) < 0.12);
    assert.ok(rms(samples) > 0.01);
  });

  test('mp3 is the default format; speed 2 is about half as long', async () => {
    const normal = await openai.audio.speech.create({ model: 'tts-1-hd', voice: 'alloy', input: TEXT });
    assert.equal(normal.headers.get('content-type'), 'audio/mpeg');
    const fast = await openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: TEXT, speed: 2, response_format: 'wav' });
    const seconds = ffmpegDecode(tmp.file('fast.wav', new Uint8Array(await fast.arrayBuffer())), { rate: 24_000 }).length / 24_000;
    const normalSeconds =
      ffmpegDecode(tmp.file('normal.mp3', new Uint8Array(await normal.arrayBuffer())), { rate: 24_000 }).length / 24_000;
    assert.ok(seconds / normalSeconds > 0.4 && seconds / normalSeconds < 0.65, `speed 2 ratio ${seconds / normalSeconds}`);
  });
});

describe('OpenAI voices and models', () => {
  async function spoken(
    model: string,
    voice: string | { id: string },
    input = TEXT,
  ): Promise<{ voiceId: string | null; samples: Float32Array }> {
    const { data, response } = await openai.audio.speech
      .create({ model, voice: voice as string, input, response_format: 'pcm' })
      .withResponse();
    return { voiceId: response.headers.get('x-voice-id'), samples: pcm16Samples(new Uint8Array(await data.arrayBuffer())) };
  }

  test('female names sound female, male names male (measured pitch)', async () => {
    const pitches: Record<string, number> = {};
    for (const voice of ['nova', 'shimmer', 'onyx', 'echo']) {
      pitches[voice] = measurePitch((await spoken('tts-1', voice)).samples, 24_000).medianHz;
    }
    for (const female of ['nova', 'shimmer']) {
      for (const male of ['onyx', 'echo']) {
        assert.ok(pitches[female] > pitches[male] * 1.3, `${female} ${pitches[female]} Hz vs ${male} ${pitches[male]} Hz`);
      }
    }
  });

  test('every OpenAI voice name is accepted', async () => {
    for (const voice of [
      'alloy',
      'ash',
      'ballad',
      'coral',
      'echo',
      'fable',
      'nova',
      'onyx',
      'sage',
      'shimmer',
      'verse',
      'marin',
      'cedar',
    ]) {
      const { voiceId, samples } = await spoken('tts-1', voice, 'Hello there.');
      assert.ok(voiceId && voiceId.length > 0, voice);
      assert.ok(samples.length > 0.3 * 24_000, `${voice} spoke`);
    }
  });

  test('our own voice ids work, as a string or as {id}', async () => {
    assert.equal((await spoken('tts-1', 'espeak-de-female-1')).voiceId, 'espeak-de-female-1');
    assert.equal((await spoken('gpt-4o-mini-tts', { id: 'flite-rms' })).voiceId, 'flite-rms');
  });

  test('an engine id as model picks that engine’s voice for an OpenAI name', async () => {
    assert.equal((await spoken('espeak', 'alloy')).voiceId, 'espeak-en-us-female-2');
    assert.equal((await spoken('flite', 'nova')).voiceId, 'flite-slt');
  });

  test('model × voice is lenient, as Open WebUI pairs them: the voice wins, the model is a preference', async () => {
    // A voice of another engine than the model's is spoken as asked (it was a 400).
    const cross = await spoken('espeak', 'flite-slt');
    assert.equal(cross.voiceId, 'flite-slt');
    assert.equal(cross.samples.length, (await ourPcm('flite-slt')).length, 'the same speech as flite-slt itself');
    assert.equal((await spoken('flite', 'espeak-de-female-1', 'Guten Tag.')).voiceId, 'espeak-de-female-1');
    // An engine with no voices of OpenAI's names (none installed here) falls back to the usual mapping.
    assert.equal((await spoken('piper', 'alloy')).voiceId, (await spoken('tts-1', 'alloy')).voiceId);
  });

  test('sse: speech.audio.delta events carry the file, then speech.audio.done', async () => {
    const res = await s.call('/v1/audio/speech', {
      json: { model: 'gpt-4o-mini-tts', voice: 'alloy', input: TEXT, response_format: 'pcm', stream_format: 'sse' },
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const events = (await res.text())
      .split('\n\n')
      .filter((e) => e.startsWith('data: '))
      .map((e) => JSON.parse(e.slice(6)) as { type: string; audio?: string; usage?: { input_tokens: number } });
    const deltas = events.filter((e) => e.type === 'speech.audio.delta');
    assert.ok(deltas.length > 0);
    assert.equal(events.at(-1)?.type, 'speech.audio.done');
    assert.equal(events.at(-1)?.usage?.input_tokens, TEXT.length);
    const bytes = Buffer.concat(deltas.map((d) => Buffer.from(d.audio ?? '', 'base64')));
    const direct = await ourPcm('flite-slt');
    assert.ok(Math.abs(bytes.length / 2 - direct.length) / direct.length < 0.02, `${bytes.length / 2} vs ${direct.length} samples`);
  });
});

describe('OpenAI client errors', () => {
  test('aac, an unknown model and an unknown voice are 400/404 the SDK reports with our message', async () => {
    const cases: Array<[Record<string, unknown>, number, RegExp]> = [
      [{ model: 'tts-1', voice: 'alloy', input: 'Hi.', response_format: 'aac' }, 400, /aac is not supported/],
      [{ model: 'whisper-1', voice: 'alloy', input: 'Hi.' }, 400, /model must be/],
      [{ model: 'tts-1', voice: 'robot-9', input: 'Hi.' }, 404, /No voice "robot-9"/],
      [{ model: 'tts-1', voice: 'alloy', input: 'Hi.', speed: 9 }, 400, /speed/],
    ];
    for (const [body, status, message] of cases) {
      await assert.rejects(
        openai.audio.speech.create(body as unknown as OpenAI.Audio.SpeechCreateParams),
        (err: unknown) => {
          assert.ok(err instanceof OpenAI.APIError, String(err));
          assert.equal(err.status, status);
          // Our body keeps `error` a string (the one error body of every door): the SDK exposes it as `error`, and quotes it in `message`.
          assert.equal(typeof err.error, 'string');
          assert.match(err.error as string, message);
          assert.ok(err.message.startsWith(`${status} "`), err.message);
          assert.match(err.requestID ?? '', /^[0-9a-f-]{36}$/);
          return true;
        },
        JSON.stringify(body),
      );
    }
  });

  test('a wrong key is the SDK’s AuthenticationError', async () => {
    const stranger = new OpenAI({ apiKey: 'sk-not-ours', baseURL: `${s.base}/v1`, maxRetries: 0 });
    await assert.rejects(stranger.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hi.' }), OpenAI.AuthenticationError);
  });
});
