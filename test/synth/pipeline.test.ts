// The synthesis pipeline in-process (no worker threads): formats, joins, word timings, cancel.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Engine } from '../../src/synth/engine.ts';
import { renderSpeech, warmVoice } from '../../src/synth/pipeline.ts';
import { dbToGain } from '../../src/audio/loudness.ts';
import { DEFAULT_LOUDNESS_TARGET_LUFS, voiceGain } from '../../src/synth/voice-loudness.ts';
import type { VoiceSpec } from '../../src/synth/voice-spec.ts';
import type { SpeechRequest, WordTiming } from '../../src/synth/speech.ts';
import type { OutputFormat } from '../../src/synth/speech.ts';
import { concatBytes, decodeCompressed, decodeF32, decodePcm16, decodeWav, peak, rms, speechSeconds, type Audio } from './helpers.ts';

interface Collected {
  chunks: Uint8Array[];
  seconds: number;
  words: WordTiming[];
  cancelled: boolean;
}

async function collect(req: SpeechRequest, signal?: AbortSignal, onChunk?: (n: number) => void): Promise<Collected> {
  const chunks: Uint8Array[] = [];
  const words: WordTiming[] = [];
  const r = await renderSpeech(req, {
    signal,
    emit: async (bytes, _seconds, w) => {
      chunks.push(bytes);
      if (w) words.push(...w);
      onChunk?.(chunks.length);
    },
  });
  return { chunks, seconds: r.seconds, words, cancelled: r.cancelled };
}

async function decode(format: OutputFormat, bytes: Uint8Array): Promise<Audio> {
  switch (format) {
    case 'f32':
      return { samples: decodeF32(bytes), rate: 24000 };
    case 'pcm':
      return { samples: decodePcm16(bytes), rate: 24000 };
    case 'wav':
    case 'mulaw':
    case 'alaw':
      return decodeWav(bytes);
    default:
      return decodeCompressed(format, bytes);
  }
}

const TEXT = 'Hello there, my friend. It costs $5.20 today!';

describe('pipeline', () => {
  test('every format produces decodable audio of the same length', async () => {
    const reference = await collect({ text: TEXT, voice: { engine: 'espeak', base: 'en-us' }, speed: 1, format: 'f32' });
    const refSeconds = decodeF32(concatBytes(reference.chunks)).length / 24000;
    assert.ok(Math.abs(refSeconds - reference.seconds) < 0.01, `${refSeconds} vs reported ${reference.seconds}`);
    for (const format of ['wav', 'mulaw', 'alaw', 'pcm', 'mp3', 'opus', 'flac'] as const) {
      const out = await collect({ text: TEXT, voice: { engine: 'espeak', base: 'en-us' }, speed: 1, format });
      const audio = await decode(format, concatBytes(out.chunks));
      assert.equal(audio.rate, format === 'mulaw' || format === 'alaw' ? 8000 : format === 'opus' ? 48000 : 24000, format);
      const secs = audio.samples.length / audio.rate;
      // espeak's output varies by a few ms between runs; codecs pad by a frame at most.
      assert.ok(Math.abs(secs - refSeconds) < 0.08, `${format}: ${secs}s vs ${refSeconds}s`);
      assert.ok(rms(audio.samples) > 0.02, `${format} rms`);
    }
  });

  test('f32 chunks are whole samples and start and end faded', async () => {
    const out = await collect({ text: TEXT, voice: { engine: 'flite', base: 'slt' }, speed: 1, format: 'f32' });
    assert.ok(out.chunks.length > 2);
    for (const c of out.chunks) assert.equal(c.length % 4, 0);
    const x = decodeF32(concatBytes(out.chunks));
    assert.ok(Math.abs(x[0]) < 0.01 && Math.abs(x[x.length - 1]) < 0.01);
  });

  test('sentences join with a pause and no click', async () => {
    const out = await collect({
      text: 'First sentence here. Second one follows.',
      voice: { engine: 'flite', base: 'slt' },
      speed: 1,
      format: 'f32',
    });
    const x = decodeF32(concatBytes(out.chunks));
    const frame = 240;
    const loud: boolean[] = [];
    // "Loud": over 30 dB under the delivered loudness (-46 dBFS at -16 LUFS), so the threshold moves with the target.
    const threshold = dbToGain(DEFAULT_LOUDNESS_TARGET_LUFS - 30);
    for (let at = 0; at + frame <= x.length; at += frame) loud.push(rms(x.subarray(at, at + frame)) > threshold);
    // Longest quiet run inside the speech.
    const first = loud.indexOf(true);
    const last = loud.lastIndexOf(true);
    let run = 0;
    let longest = 0;
    let gapEnd = 0;
    for (let i = first; i <= last; i++) {
      run = loud[i] ? 0 : run + 1;
      if (run > longest) {
        longest = run;
        gapEnd = i + 1;
      }
    }
    const gap = (longest * frame) / 24000;
    // The pause itself is digital silence around the fades, not engine noise.
    const inner = x.subarray((gapEnd - longest) * frame + 480, gapEnd * frame - 480);
    assert.ok(peak(inner) < 0.01, `pause peak ${peak(inner)}`);
    // flite pads each sentence with ~0.2 s on both sides; trimmed and joined, the pause is ~0.3-0.45 s.
    assert.ok(gap > 0.25 && gap < 0.6, `pause ${gap}s`);
    let jump = 0;
    for (let i = 1; i < x.length; i++) jump = Math.max(jump, Math.abs(x[i] - x[i - 1]));
    assert.ok(jump < 0.9 * peak(x) + 0.05, `largest step ${jump}`);
    // Leading silence is trimmed to a margin: speech (a soft "F" rising to 30 dB under the target included) within 0.1 s.
    assert.ok(loud.indexOf(true) * frame < 24000 * 0.1, `speech starts at ${(loud.indexOf(true) * frame) / 24000} s`);
  });

  test('speed changes duration; pauses follow it', async () => {
    const voice = { engine: 'flite', base: 'slt' } as const;
    const text = 'One sentence is here. Another sentence is there. And a third one.';
    const normal = speechSeconds({
      samples: decodeF32(concatBytes((await collect({ text, voice, speed: 1, format: 'f32' })).chunks)),
      rate: 24000,
    });
    const fast = speechSeconds({
      samples: decodeF32(concatBytes((await collect({ text, voice, speed: 2, format: 'f32' })).chunks)),
      rate: 24000,
    });
    assert.ok(fast / normal > 0.4 && fast / normal < 0.62, `${fast} / ${normal}`);
  });

  test('word timings are on the stream timeline and point at the written text ("$5.20" is one word)', async () => {
    const out = await collect({ text: TEXT, voice: { engine: 'espeak', base: 'en-us' }, speed: 1, format: 'f32' });
    const total = decodeF32(concatBytes(out.chunks)).length / 24000;
    assert.deepEqual(
      out.words.map((w) => w.word),
      ['Hello', 'there', 'my', 'friend', 'It', 'costs', '$5.20', 'today'],
    );
    for (const w of out.words) assert.equal(TEXT.slice(w.offset, w.offset + w.length), w.word);
    for (let i = 0; i < out.words.length; i++) {
      const w = out.words[i];
      assert.ok(w.start >= 0 && w.end >= w.start && w.end <= total + 1e-3, JSON.stringify(w));
      if (i > 0) assert.ok(w.start >= out.words[i - 1].start);
    }
    // The second sentence starts after the pause.
    assert.ok(out.words[4].start - out.words[3].end > 0.2, JSON.stringify(out.words.slice(3, 5)));
    // The spoken "five dollars and twenty cents" takes far longer than one short word.
    assert.ok(out.words[6].end - out.words[6].start > 0.8, JSON.stringify(out.words[6]));
  });

  test('mu-law output is 8 kHz', async () => {
    const out = await collect({ text: 'Telephone quality.', voice: { engine: 'flite', base: 'kal' }, speed: 1, format: 'mulaw' });
    const a = decodeWav(concatBytes(out.chunks));
    assert.equal(a.rate, 8000);
    assert.equal(a.format, 7);
    assert.ok(rms(a.samples) > 0.02);
  });

  test('aborting stops between blocks and reports it', async () => {
    const text = Array.from({ length: 10 }, (_, i) => `This is sentence number ${i + 1} of a long text.`).join(' ');
    const full = await collect({ text, voice: { engine: 'espeak', base: 'en-us' }, speed: 1, format: 'pcm' });
    const ac = new AbortController();
    const cut = await collect({ text, voice: { engine: 'espeak', base: 'en-us' }, speed: 1, format: 'pcm' }, ac.signal, (n) => {
      if (n === 3) ac.abort();
    });
    assert.equal(cut.cancelled, true);
    assert.equal(cut.chunks.length, 3);
    assert.ok(full.chunks.length > 20);
  });

  test('empty text gives a valid empty file; an unknown voice fails', async () => {
    const out = await collect({ text: '  ...  ', voice: { engine: 'flite', base: 'slt' }, speed: 1, format: 'wav' });
    assert.equal(decodeWav(concatBytes(out.chunks)).samples.length, 0);
    await assert.rejects(collect({ text: 'Hi.', voice: { engine: 'flite', base: 'zzz' }, speed: 1, format: 'wav' }), /unknown voice/);
  });
});

describe('warming a voice', () => {
  // An engine that fails if it is asked for anything: voiceGain only needs one when the gain is not known yet.
  const noEngine = {
    info: { id: 'flite' },
    synthesize() {
      throw new Error('the engine was asked to render');
    },
  } as unknown as Engine;

  test('warmVoice measures the voice, so a request for it later does not', async () => {
    // Voices outside the catalog: built-in voices' gains come from voice-gains.json (voice-gains.test.ts).
    const warmed: VoiceSpec = { engine: 'flite', base: 'kal16', controls: { pitchHz: 150 } };
    const other: VoiceSpec = { engine: 'flite', base: 'awb', controls: { pitchHz: 133 } };
    await assert.rejects(() => voiceGain(noEngine, warmed), /asked to render/);
    await warmVoice(warmed);
    const gain = await voiceGain(noEngine, warmed);
    assert.ok(Number.isFinite(gain) && gain > 0, `a gain (${gain})`);
    await assert.rejects(() => voiceGain(noEngine, other), /asked to render/, 'only the warmed voice is known');
  });
});
