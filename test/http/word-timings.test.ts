// Word timings checked against an independent measurement: in a slowly spoken list of isolated words the
// speech onsets after each pause are found from the decoded audio alone, and every word's start must sit
// within 60 ms of its onset (what captions and karaoke-style highlighting need). The measured errors are printed so the accuracy is on record.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SpeechWithTimestamps } from '../../src/schemas/timestamps.ts';
import { useService } from '../helpers/fixture.ts';
import { timedSpeech } from '../helpers/timed-speech.ts';

const s = useService({ user: 'word-timings@example.com' });

const WORDS = ['apple', 'river', 'mountain', 'window', 'garden', 'yellow', 'basket', 'candle', 'forest', 'lemon'];
const BOUND = 0.06;
const FRAME = 0.01;
/** A word onset follows at least this much near-silence (the breaks are 400 ms; stops inside a word are shorter). */
const MIN_GAP = 0.15;

type Timed = SpeechWithTimestamps & { samples: Float32Array; rate: number };

async function timed(text: string, voice: string): Promise<Timed> {
  const out = await timedSpeech(s, s.key, { text, voice_id: voice });
  return { ...out, rate: out.sample_rate };
}

/** RMS of each 10 ms frame. */
function frameRms(x: Float32Array, rate: number): number[] {
  const n = Math.round(rate * FRAME);
  const out: number[] = [];
  for (let i = 0; i + n <= x.length; i += n) {
    let sum = 0;
    for (let j = i; j < i + n; j++) sum += x[j] * x[j];
    out.push(Math.sqrt(sum / n));
  }
  return out;
}

/**
 * Speech onsets in seconds, from the audio only: the first frame above a threshold after ≥ MIN_GAP of frames
 * below it (the very start of the audio counts as silence). The threshold sits between the noise floor (a low
 * percentile of the frame levels) and the peak, on a log scale, so it does not depend on the voice's loudness.
 */
function onsets(x: Float32Array, rate: number): number[] {
  const rms = frameRms(x, rate);
  const sorted = [...rms].sort((a, b) => a - b);
  const floor = Math.max(sorted[Math.floor(sorted.length * 0.1)], 1e-5);
  const peak = sorted[sorted.length - 1];
  const threshold = Math.exp(Math.log(floor) + 0.25 * (Math.log(peak) - Math.log(floor)));
  const out: number[] = [];
  let quiet = Infinity;
  for (let i = 0; i < rms.length; i++) {
    if (rms[i] < threshold) quiet++;
    else {
      if (quiet * FRAME >= MIN_GAP - 1e-9) out.push(i * FRAME);
      quiet = 0;
    }
  }
  return out;
}

interface Errors {
  mean: number;
  max: number;
  signed: number[];
}

/** Checks the timings' shape and text spans, then matches words to onsets in order and returns the errors. */
function measure(out: Timed, source: string): Errors {
  const total = out.samples.length / out.rate;
  assert.ok(Math.abs(out.duration - total) < 0.01, `duration ${out.duration} vs ${total} s of samples`);
  assert.deepEqual(
    out.words.map((w) => w.word.toLowerCase()),
    WORDS,
  );
  let prev = 0;
  for (const w of out.words) {
    assert.ok(w.start >= prev - 1e-9, `${JSON.stringify(w)} starts before the previous word (${prev})`);
    assert.ok(w.end >= w.start, `${JSON.stringify(w)} ends before it starts`);
    assert.equal(source.slice(w.offset, w.offset + w.length), w.word);
    prev = w.start;
  }
  assert.ok(out.words[out.words.length - 1].end <= total + 1e-3, `last end after the audio (${total} s)`);
  const found = onsets(out.samples, out.rate);
  assert.equal(found.length, out.words.length, `onsets ${JSON.stringify(found)} vs words ${JSON.stringify(out.words)}`);
  const signed = out.words.map((w, i) => w.start - found[i]);
  const abs = signed.map(Math.abs);
  return { mean: abs.reduce((a, b) => a + b, 0) / abs.length, max: Math.max(...abs), signed };
}

function report(t: { diagnostic: (m: string) => void }, what: string, e: Errors): void {
  const ms = (v: number): string => (v * 1000).toFixed(0);
  const line = `${what}: |start - onset| mean ${ms(e.mean)} ms, max ${ms(e.max)} ms (signed ms: ${e.signed.map(ms).join(' ')})`;
  t.diagnostic(line);
}

const SSML = `<speak>${WORDS.join('<break time="400ms"/>')}</speak>`;
// Plain sentences alone ("apple. river.") leave only ~100 ms between words in flite, too short to call a gap;
// plain text may carry <break/> (as ElevenLabs allows), which gives the clear pauses the measurement needs.
const PLAIN = WORDS.map((w) => `${w}.`).join(' <break time="400ms"/> ');

describe('word timings against speech onsets in a slow list of words', () => {
  test('default voice (flite), SSML breaks: every start within 60 ms of its onset', async (t) => {
    const out = await timed(SSML, 'default');
    const e = measure(out, SSML);
    report(t, 'default (flite slt), SSML 400 ms breaks', e);
    assert.ok(e.max <= BOUND, `max error ${e.max} s`);
  });

  test('default voice (flite), plain text "apple. <break/> river. …": every start within 60 ms of its onset', async (t) => {
    const out = await timed(PLAIN, 'default');
    const e = measure(out, PLAIN);
    report(t, 'default (flite slt), plain text with 400 ms breaks', e);
    assert.ok(e.max <= BOUND, `max error ${e.max} s`);
  });

  test('espeak voice, SSML breaks, for comparison', async (t) => {
    const out = await timed(SSML, 'espeak-en-us-female-1');
    const e = measure(out, SSML);
    report(t, 'espeak-en-us-female-1, SSML 400 ms breaks', e);
    assert.ok(e.max <= BOUND, `max error ${e.max} s`);
  });
});
