// Output choices on every HTTP door: `sample_rate` for pcm and wav, G.711 A-law beside mu-law, and errors that
// name what is accepted. Audio is decoded by ffmpeg, not by our own code.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { SAMPLE_RATES, SPEECH_FORMATS } from '../../src/schemas/speech.ts';
import { ffmpegDecode, probe, SKIP_NO_FFMPEG, TempDir } from '../audio/ffmpeg.ts';
import { pcm16Samples, rms } from '../audio/signals.ts';
import { useService } from '../helpers/fixture.ts';

let openai: OpenAI;
const tmp = new TempDir();
const s = useService({ user: 'rates@example.com' }, async () => {
  openai = new OpenAI({ apiKey: s.key, baseURL: `${s.base}/v1`, maxRetries: 0 });
});
after(async () => {
  tmp.remove();
});

// flite (the default voice) renders the same samples every time, so two formats of one text can be compared.
const TEXT = 'Telephone lines carry eight thousand samples a second.';

async function speak(body: Record<string, unknown>): Promise<Response> {
  return s.call('/v1/speak', { json: body });
}

async function audio(body: Record<string, unknown>): Promise<{ bytes: Uint8Array; headers: Headers }> {
  const res = await speak(body);
  assert.equal(res.status, 200, await res.clone().text());
  return { bytes: new Uint8Array(await res.arrayBuffer()), headers: res.headers };
}

function correlation(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < n; i++) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return ab / Math.sqrt(aa * bb);
}

describe('sample_rate on /v1/speak', { skip: SKIP_NO_FFMPEG }, () => {
  let seconds = 0;
  before(async () => {
    seconds = pcm16Samples((await audio({ text: TEXT, format: 'pcm' })).bytes).length / 24_000;
    assert.ok(seconds > 1.5 && seconds < 8, `reference ${seconds} s`);
  });

  for (const rate of SAMPLE_RATES) {
    test(`wav at ${rate} Hz: ffprobe reads ${rate} Hz and the same duration`, async () => {
      const { bytes, headers } = await audio({ text: TEXT, format: 'wav', sample_rate: rate });
      assert.equal(headers.get('x-sample-rate'), String(rate));
      const path = tmp.file(`rate-${rate}.wav`, bytes);
      const info = probe(path);
      assert.equal(info.codec, 'pcm_s16le');
      assert.equal(info.sampleRate, rate);
      const samples = ffmpegDecode(path);
      // Resampling keeps the length to within a filter's delay.
      assert.ok(Math.abs(samples.length - seconds * rate) < 0.01 * rate, `${samples.length} samples at ${rate} Hz for ${seconds} s`);
      assert.ok(rms(samples) > 0.01, 'not silent');
    });

    test(`pcm at ${rate} Hz: X-Sample-Rate says so and the sample count fits`, async () => {
      const { bytes, headers } = await audio({ text: TEXT, format: 'pcm', sample_rate: rate });
      assert.equal(headers.get('x-sample-rate'), String(rate));
      const samples = pcm16Samples(bytes);
      assert.ok(Math.abs(samples.length - seconds * rate) < 0.01 * rate, `${samples.length} samples at ${rate} Hz for ${seconds} s`);
      // Read by ffmpeg as raw s16le at the stated rate: the same speech as the 24 kHz reference.
      const decoded = ffmpegDecode(tmp.file(`rate-${rate}.pcm`, bytes), {
        inputArgs: ['-f', 's16le', '-ar', String(rate), '-ac', '1'],
        rate: 24_000,
      });
      assert.ok(Math.abs(decoded.length / 24_000 - seconds) < 0.02);
    });
  }

  test('the rate a format already has is accepted for it (mulaw at 8000, mp3 at 24000)', async () => {
    const mulaw = await audio({ text: TEXT, format: 'mulaw', sample_rate: 8000 });
    assert.equal(probe(tmp.file('mulaw-8k.wav', mulaw.bytes)).sampleRate, 8000);
    const mp3 = await audio({ text: TEXT, format: 'mp3', sample_rate: 24_000 });
    assert.equal(probe(tmp.file('mp3-24k.mp3', mp3.bytes)).sampleRate, 24_000);
  });
});

describe('A-law', { skip: SKIP_NO_FFMPEG }, () => {
  test('alaw is G.711 A-law WAV at 8 kHz (format tag 6) that ffmpeg decodes to the same speech as 8 kHz pcm', async () => {
    const alaw = await audio({ text: TEXT, format: 'alaw' });
    assert.equal(alaw.headers.get('content-type'), 'audio/wav');
    assert.equal(alaw.headers.get('x-sample-rate'), '8000');
    const view = new DataView(alaw.bytes.buffer, alaw.bytes.byteOffset);
    assert.equal(view.getUint16(20, true), 6, 'WAVE_FORMAT_ALAW');
    const path = tmp.file('speech-alaw.wav', alaw.bytes);
    const info = probe(path);
    assert.equal(info.codec, 'pcm_alaw');
    assert.equal(info.sampleRate, 8000);
    const decoded = ffmpegDecode(path);
    const linear = pcm16Samples((await audio({ text: TEXT, format: 'pcm', sample_rate: 8000 })).bytes);
    assert.ok(Math.abs(decoded.length - linear.length) <= 1, `${decoded.length} vs ${linear.length} samples`);
    // A-law keeps ~13 bits of shape; read as mu-law (or as anything else) it would not match.
    assert.ok(correlation(decoded, linear) > 0.995, `correlation ${correlation(decoded, linear)}`);
  });

  test('the OpenAI door speaks alaw and honours sample_rate too', async () => {
    const alaw = await openai.audio.speech.create({
      model: 'tts-1',
      voice: 'alloy',
      input: TEXT,
      response_format: 'alaw',
    } as unknown as OpenAI.Audio.SpeechCreateParams);
    const info = probe(tmp.file('openai-alaw.wav', new Uint8Array(await alaw.arrayBuffer())));
    assert.equal(info.codec, 'pcm_alaw');
    const wav = await openai.audio.speech.create({
      model: 'tts-1',
      voice: 'alloy',
      input: TEXT,
      response_format: 'wav',
      sample_rate: 16_000,
    } as unknown as OpenAI.Audio.SpeechCreateParams);
    assert.equal(probe(tmp.file('openai-16k.wav', new Uint8Array(await wav.arrayBuffer()))).sampleRate, 16_000);
  });
});

describe('errors name what is accepted', () => {
  async function refused(body: Record<string, unknown>, path = '/v1/speak'): Promise<string> {
    const res = await s.call(path, { json: body });
    assert.equal(res.status, 400, JSON.stringify(body));
    const json = (await res.json()) as { error: string; code: string };
    assert.equal(json.code, 'validation');
    return json.error;
  }

  test('an unknown format on /v1/speak lists every format', async () => {
    const message = await refused({ text: 'hi', format: 'aac' });
    for (const f of SPEECH_FORMATS) assert.ok(message.includes(f), `${message} lacks ${f}`);
  });

  test('aac on /v1/audio/speech lists every format', async () => {
    const message = await refused({ model: 'tts-1', voice: 'alloy', input: 'hi', response_format: 'aac' }, '/v1/audio/speech');
    assert.match(message, /aac is not supported/);
    for (const f of SPEECH_FORMATS) assert.ok(message.includes(f), `${message} lacks ${f}`);
  });

  test('a sample_rate off the list lists the rates; one for a fixed-rate format says which formats take it', async () => {
    const message = await refused({ text: 'hi', format: 'wav', sample_rate: 11_025 });
    for (const r of SAMPLE_RATES) assert.ok(message.includes(String(r)), `${message} lacks ${r}`);
    assert.match(
      await refused({ text: 'hi', format: 'mp3', sample_rate: 16_000 }),
      /sample_rate applies to pcm and wav; mp3 is always 24000 Hz/,
    );
    assert.match(await refused({ text: 'hi', format: 'alaw', sample_rate: 16_000 }), /alaw is always 8000 Hz/);
  });

  test('an unknown field on /v1/speak is refused with the field it probably meant', async () => {
    assert.match(await refused({ text: 'hi', voice: 'flite-rms' }), /unknown field "voice"; did you mean voice_id\?/);
    assert.match(await refused({ input: 'hi' }), /body.text is required; got an unknown field "input"; did you mean text\?/);
    assert.match(await refused({ text: 'hi', sampleRate: 8000 }), /did you mean sample_rate\?/);
    assert.match(await refused({ text: 'hi', fromat: 'wav' }), /did you mean format\?/);
  });

  test('unknown fields on /v1/audio/speech are ignored, as OpenAI’s own clients expect', async () => {
    const res = await s.call('/v1/audio/speech', {
      json: { model: 'tts-1', voice: 'alloy', input: 'Hi.', response_format: 'pcm', some_future_option: true, user: 'u-1' },
    });
    assert.equal(res.status, 200);
    assert.ok((await res.arrayBuffer()).byteLength > 4800);
  });
});
