// ElevenLabs-style routes driven by the official `@elevenlabs/elevenlabs-js` package, unchanged but for the base
// URL and key (sent by the SDK in `xi-api-key`).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ElevenLabsClient, ElevenLabsError } from '@elevenlabs/elevenlabs-js';
import { measurePitch } from '../../src/audio/analysis.ts';
import { ffmpegDecode, probe, SKIP_NO_FFMPEG, TempDir } from '../audio/ffmpeg.ts';
import { pcm16Samples } from '../audio/signals.ts';
import { useService } from '../helpers/fixture.ts';

let eleven: ElevenLabsClient;
const tmp = new TempDir();
const s = useService({ user: 'eleven-user@example.com' }, async () => {
  eleven = new ElevenLabsClient({ apiKey: s.key, baseUrl: s.base, maxRetries: 0 });
});

after(async () => {
  tmp.remove();
});

// espeak voices time their words; the alignment is derived from those times.
const VOICE = 'espeak-en-us-female-1';
const TEXT = 'The quick brown fox jumps over the lazy dog. Then it runs into the forest, at 5 p.m.';

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const part of stream) parts.push(part);
  return Buffer.concat(parts);
}

interface Alignment {
  characters: string[];
  characterStartTimesSeconds: number[];
  characterEndTimesSeconds: number[];
}

/** Every character of the text once, in order, times rising and inside the audio. */
function checkAlignment(a: Alignment | undefined, text: string, seconds: number): void {
  assert.ok(a, 'alignment present');
  assert.equal(a.characters.join(''), text);
  assert.equal(a.characterStartTimesSeconds.length, a.characters.length);
  assert.equal(a.characterEndTimesSeconds.length, a.characters.length);
  let previousEnd = 0;
  for (let i = 0; i < a.characters.length; i++) {
    const [start, end] = [a.characterStartTimesSeconds[i], a.characterEndTimesSeconds[i]];
    assert.ok(start >= previousEnd - 1e-6 && end >= start, `character ${i} (${a.characters[i]}): ${start}–${end} after ${previousEnd}`);
    previousEnd = end;
  }
  assert.ok(previousEnd <= seconds + 0.01, `last character ends at ${previousEnd}, audio is ${seconds} s`);
  // The words are really placed: the last word starts in the second half of the audio, the first in the first.
  const at = (word: string) => a.characterStartTimesSeconds[text.indexOf(word)];
  assert.ok(at('The') < seconds / 2 && at('forest') > seconds / 2, `The at ${at('The')}, forest at ${at('forest')} of ${seconds}`);
}

describe('ElevenLabs SDK: text to speech', { skip: SKIP_NO_FFMPEG }, () => {
  let reference = 0;
  before(async () => {
    const res = await s.call('/v1/speak', { json: { text: TEXT, voice_id: VOICE, format: 'pcm' } });
    assert.equal(res.status, 200);
    reference = pcm16Samples(new Uint8Array(await res.arrayBuffer())).length / 24_000;
    assert.ok(reference > 3 && reference < 12, `reference ${reference} s`);
  });

  test('convert: mp3 by default, decodes to the speech of /v1/speak', async () => {
    const audio = await bytesOf(await eleven.textToSpeech.convert(VOICE, { text: TEXT, modelId: 'eleven_multilingual_v2' }));
    const path = tmp.file('convert.mp3', audio);
    const info = probe(path);
    assert.equal(info.codec, 'mp3');
    const seconds = ffmpegDecode(path).length / info.sampleRate;
    assert.ok(Math.abs(seconds - reference) < 0.25, `${seconds} s vs ${reference} s`);
  });

  test('stream: pcm_24000 is raw 16-bit PCM at 24 kHz; voice_settings.speed applies', async () => {
    const normal = pcm16Samples(await bytesOf(await eleven.textToSpeech.stream(VOICE, { text: TEXT, outputFormat: 'pcm_24000' })));
    assert.ok(Math.abs(normal.length / 24_000 - reference) < 0.1, `${normal.length / 24_000} s vs ${reference} s`);
    const pitch = measurePitch(normal, 24_000).medianHz;
    assert.ok(pitch > 150, `female voice at ${pitch} Hz`);
    const fast = pcm16Samples(
      await bytesOf(
        await eleven.textToSpeech.stream(VOICE, { text: TEXT, outputFormat: 'pcm_24000', voiceSettings: { speed: 1.5, stability: 0.3 } }),
      ),
    );
    assert.ok(fast.length < normal.length * 0.8, `speed 1.5: ${fast.length / 24_000} s vs ${normal.length / 24_000} s`);
    // pcm_16000: the same speech, at the rate it names.
    const low = pcm16Samples(await bytesOf(await eleven.textToSpeech.stream(VOICE, { text: TEXT, outputFormat: 'pcm_16000' })));
    assert.ok(Math.abs(low.length / 16_000 - reference) < 0.1, `${low.length / 16_000} s at 16 kHz vs ${reference} s`);
    assert.ok(Math.abs(measurePitch(low, 16_000).medianHz - pitch) < 15);
  });

  for (const c of [
    { name: 'opus_48000_64', codec: 'opus', ext: 'ogg' },
    { name: 'wav_16000', codec: 'pcm_s16le', ext: 'wav', rate: 16_000 },
    { name: 'mp3_22050_32', codec: 'mp3', ext: 'mp3' },
  ] as const) {
    test(`output_format ${c.name} decodes as ${c.codec}`, async () => {
      const audio = await bytesOf(await eleven.textToSpeech.convert(VOICE, { text: TEXT, outputFormat: c.name }));
      const path = tmp.file(`format-${c.name}.${c.ext}`, audio);
      const info = probe(path);
      assert.equal(info.codec, c.codec);
      if ('rate' in c) assert.equal(info.sampleRate, c.rate);
      const seconds = ffmpegDecode(path, { rate: 16_000 }).length / 16_000;
      assert.ok(Math.abs(seconds - reference) < 0.25, `${seconds} s vs ${reference} s`);
    });
  }

  for (const c of [
    { name: 'ulaw_8000', law: 'mulaw', type: 'audio/basic', silence: [0xff, 0x7f] },
    { name: 'alaw_8000', law: 'alaw', type: 'audio/x-alaw-basic', silence: [0xd5, 0x55] },
  ] as const) {
    test(`output_format ${c.name}: bare 8 kHz G.711 bytes, no WAV header, as a telephony stream takes them`, async () => {
      const res = await s.request(`/v1/text-to-speech/${VOICE}/stream?output_format=${c.name}`, {
        json: { text: TEXT },
        headers: { 'xi-api-key': s.key },
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), c.type);
      const audio = Buffer.from(await res.arrayBuffer());
      assert.notEqual(audio.toString('latin1', 0, 4), 'RIFF');
      // The speech starts with a few milliseconds of silence: that law's code for zero.
      assert.ok((c.silence as readonly number[]).includes(audio[0]), `first byte 0x${audio[0].toString(16)}`);
      assert.ok(Math.abs(audio.length / 8000 - reference) < 0.25, `one byte per sample: ${audio.length / 8000} s vs ${reference} s`);
      const path = tmp.file(`bare-${c.name}.raw`, audio);
      const decoded = ffmpegDecode(path, { inputArgs: ['-f', c.law, '-ar', '8000', '-ac', '1'] });
      assert.equal(decoded.length, audio.length);
      const pitch = measurePitch(decoded, 8000).medianHz;
      assert.ok(pitch > 150, `read as ${c.law}, the female voice at ${pitch} Hz`);
    });
  }

  test('convertWithTimestamps: base64 audio and a character alignment within it', async () => {
    const res = await eleven.textToSpeech.convertWithTimestamps(VOICE, { text: TEXT, outputFormat: 'pcm_24000' });
    const samples = pcm16Samples(Buffer.from(res.audioBase64, 'base64'));
    const seconds = samples.length / 24_000;
    assert.ok(Math.abs(seconds - reference) < 0.1);
    checkAlignment(res.alignment, TEXT, seconds);
    checkAlignment(res.normalizedAlignment, TEXT, seconds);
  });

  test('streamWithTimestamps: newline-delimited chunks whose audio and alignments add up', async () => {
    const stream = await eleven.textToSpeech.streamWithTimestamps(VOICE, { text: TEXT, outputFormat: 'pcm_24000' });
    const audio: Buffer[] = [];
    const merged: Alignment = { characters: [], characterStartTimesSeconds: [], characterEndTimesSeconds: [] };
    let chunks = 0;
    let timedChunks = 0;
    for await (const chunk of stream) {
      chunks++;
      audio.push(Buffer.from(chunk.audioBase64, 'base64'));
      if (!chunk.alignment) continue;
      timedChunks++;
      merged.characters.push(...chunk.alignment.characters);
      merged.characterStartTimesSeconds.push(...chunk.alignment.characterStartTimesSeconds);
      merged.characterEndTimesSeconds.push(...chunk.alignment.characterEndTimesSeconds);
    }
    assert.ok(chunks >= 4 && timedChunks >= 2, `${chunks} chunks, ${timedChunks} with characters`);
    const seconds = pcm16Samples(Buffer.concat(audio)).length / 24_000;
    assert.ok(Math.abs(seconds - reference) < 0.1);
    checkAlignment(merged, TEXT, seconds);
  });
});

describe('ElevenLabs SDK: voices', () => {
  test('voices.getAll lists every voice in their shape; voices.get one of them', async () => {
    const { voices } = await eleven.voices.getAll();
    const ours = (await (await s.request('/api/voices')).json()) as { voices: Array<{ id: string }> };
    assert.equal(voices.length, ours.voices.length);
    const slt = voices.find((v) => v.voiceId === 'flite-slt');
    assert.equal(slt?.category, 'premade');
    assert.equal(slt?.labels?.gender, 'female');
    assert.equal(slt?.labels?.language, 'en-US');
    const one = await eleven.voices.get('espeak-en-us-male-1');
    assert.equal(one.voiceId, 'espeak-en-us-male-1');
    await assert.rejects(eleven.voices.get('no-such-voice'), (e: unknown) => e instanceof ElevenLabsError && e.statusCode === 404);
  });

  test('voices.search ranks by the words and pages with next_page_token', async () => {
    const found = await eleven.voices.search({ search: 'scottish male' });
    assert.equal(found.voices[0]?.voiceId, 'flite-awb');
    const first = await eleven.voices.search({ pageSize: 5 });
    assert.equal(first.voices.length, 5);
    assert.equal(first.hasMore, true);
    assert.ok(first.nextPageToken);
    const second = await eleven.voices.search({ pageSize: 5, nextPageToken: first.nextPageToken });
    assert.equal(second.voices.length, 5);
    assert.deepEqual(new Set([...first.voices, ...second.voices].map((v) => v.voiceId)).size, 10, 'pages do not overlap');
    assert.equal(second.totalCount, first.totalCount);
  });
});

describe('ElevenLabs routes: keys and errors', () => {
  const post = (path: string, json: unknown, headers: Record<string, string>) => s.request(path, { method: 'POST', json, headers });

  test('xi-api-key is the key header; a bad one is a 401 like a bad Bearer key, counted alike', async () => {
    const ok = await post(`/v1/text-to-speech/${VOICE}?output_format=pcm_24000`, { text: 'Hi.' }, { 'xi-api-key': s.key });
    assert.equal(ok.status, 200);
    assert.ok((await ok.arrayBuffer()).byteLength > 1000);
    for (const bad of ['service_sk_nope', '', 'two words']) {
      const res = await post(`/v1/text-to-speech/${VOICE}`, { text: 'Hi.' }, { 'xi-api-key': bad });
      assert.equal(res.status, 401, `"${bad}"`);
      assert.equal(((await res.json()) as { code: string }).code, 'unauthorized');
    }
    const none = await post(`/v1/text-to-speech/${VOICE}`, { text: 'Hi.' }, {});
    assert.equal(none.status, 401);
    // The key never reaches the log.
    assert.ok(!s.logs.join('').includes(s.key));
  });

  test('an unsupported output_format is a 400 listing the accepted names', async () => {
    const res = await post(`/v1/text-to-speech/${VOICE}?output_format=aac_44100`, { text: 'Hi.' }, { 'xi-api-key': s.key });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: string; code: string };
    assert.equal(body.code, 'validation');
    for (const name of ['mp3_44100_128', 'pcm_16000', 'pcm_44100', 'wav_8000', 'ulaw_8000', 'alaw_8000', 'opus_48000_64'])
      assert.match(body.error, new RegExp(name));
  });

  test('unknown body fields are ignored; missing text, bad speed and an unknown voice are refused', async () => {
    const extra = await post(
      `/v1/text-to-speech/${VOICE}/stream?output_format=pcm_24000`,
      { text: 'Hi.', seed: 4, previous_text: 'x', apply_text_normalization: 'auto' },
      { 'xi-api-key': s.key },
    );
    assert.equal(extra.status, 200);
    await extra.arrayBuffer();
    const cases: Array<[string, unknown, number, string]> = [
      [VOICE, { model_id: 'x' }, 400, 'validation'],
      [VOICE, { text: '' }, 400, 'validation'],
      [VOICE, { text: 'Hi.', voice_settings: { speed: 9 } }, 400, 'validation'],
      ['no-such-voice', { text: 'Hi.' }, 404, 'voice_not_found'],
    ];
    for (const [voice, json, status, code] of cases) {
      const res = await post(`/v1/text-to-speech/${voice}/with-timestamps`, json, { 'xi-api-key': s.key });
      assert.equal(res.status, status, JSON.stringify(json));
      assert.equal(((await res.json()) as { code: string }).code, code);
    }
  });

  test('the SDK reports our errors as ElevenLabsError with the status; usage counts the characters', async () => {
    await assert.rejects(
      eleven.textToSpeech.convert('no-such-voice', { text: 'Hi.' }),
      (e: unknown) => e instanceof ElevenLabsError && e.statusCode === 404,
    );
    const usage = async () =>
      ((await (await s.request('/api/usage', { cookie: s.cookie })).json()) as { keys: Array<{ characters: number }> }).keys.reduce(
        (n, k) => n + k.characters,
        0,
      );
    const before = await usage();
    await bytesOf(await eleven.textToSpeech.convert(VOICE, { text: 'Count these characters.', outputFormat: 'pcm_24000' }));
    assert.equal((await usage()) - before, 'Count these characters.'.length);
  });
});
