import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { measurePitch, measureSpeakingRate, spectralFeatures, trimSilence } from '../../src/audio/analysis.ts';
import { decodeUpload } from '../../src/audio/decode.ts';
import { run, TempDir } from './ffmpeg.ts';
import { concatF32, semitones, sine } from './signals.ts';

const has = (cmd: string, arg: string) => spawnSync(cmd, [arg], { stdio: 'ignore' }).status === 0;
const SKIP_NO_ESPEAK: false | string = has('espeak-ng', '--version') ? false : 'espeak-ng not installed (apt-get install -y espeak-ng)';
const SKIP_NO_FLITE: false | string = has('flite', '-lv') ? false : 'flite not installed (apt-get install -y flite)';

const tmp = new TempDir();
after(() => tmp.remove());

/** Deterministic pseudo-random noise in [-1, 1). */
function noise(n: number, seed = 1): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s / 2 ** 31 - 1;
  }
  return out;
}

/** A sum of harmonics of f0 with the given amplitudes (index 0 = fundamental). */
function harmonics(f0: number, amps: number[], seconds: number, rate: number): Float32Array {
  const n = Math.round(seconds * rate);
  const x = new Float32Array(n);
  amps.forEach((a, h) => {
    const f = f0 * (h + 1);
    if (f >= rate / 2) return;
    for (let i = 0; i < n; i++) x[i] += a * Math.sin((2 * Math.PI * f * i) / rate);
  });
  return x;
}

const silence = (seconds: number, rate: number) => new Float32Array(Math.round(seconds * rate));

async function speech(cmd: 'espeak-ng' | 'flite', args: string[], name: string) {
  const path = `${tmp.path}/${name}.wav`;
  if (cmd === 'espeak-ng') run('espeak-ng', ['-w', path, ...args]);
  else run('flite', [...args, '-o', path]);
  return decodeUpload(readFileSync(path), { maxSeconds: 60 });
}

const TEXT = 'The quick brown fox jumps over the lazy dog. She sells sea shells by the sea shore.';
const SHORT_TEXT = 'The quick brown fox jumps over the lazy dog.';

test('measurePitch finds sines within a semitone at every common rate', () => {
  for (const rate of [8000, 16000, 22050, 24000, 44100, 48000]) {
    for (const f of [60, 100, 220, 440]) {
      const p = measurePitch(sine(f, 1, rate), rate);
      assert.ok(semitones(p.medianHz, f) < 1, `${f} Hz at ${rate}: ${p.medianHz}`);
      assert.ok(semitones(p.medianHz, f) < 0.1, `${f} Hz at ${rate} is not precise: ${p.medianHz}`);
      assert.ok(p.voicedFraction > 0.95, `voiced ${p.voicedFraction}`);
    }
  }
});

test('measurePitch is not fooled an octave up by a weak fundamental or strong harmonics', () => {
  const rate = 24000;
  const weakFundamental = harmonics(110, [0.15, 1, 0.6, 0.4, 0.2], 1.5, rate);
  const missingFundamental = harmonics(150, [0, 1, 0.8, 0.5], 1.5, rate);
  const buzzy = harmonics(
    90,
    Array.from({ length: 40 }, (_, h) => 1 / (h + 1)),
    1.5,
    rate,
  );
  for (const [x, f] of [
    [weakFundamental, 110],
    [missingFundamental, 150],
    [buzzy, 90],
  ] as const) {
    const p = measurePitch(x, rate);
    assert.ok(semitones(p.medianHz, f) < 1, `expected ${f} Hz, got ${p.medianHz}`);
    assert.ok(semitones(p.p10Hz, f) < 1 && semitones(p.p90Hz, f) < 1, `spread ${p.p10Hz}-${p.p90Hz} around ${f}`);
  }
});

test('measurePitch reports the spread of a glide and no pitch for noise or silence', () => {
  const rate = 16000;
  const n = 2 * rate;
  const glide = new Float32Array(n);
  let phase = 0;
  for (let i = 0; i < n; i++) {
    const f = 100 * 2 ** (i / n); // 100 -> 200 Hz, one octave
    phase += (2 * Math.PI * f) / rate;
    glide[i] = 0.5 * Math.sin(phase);
  }
  const g = measurePitch(glide, rate);
  assert.ok(semitones(g.medianHz, 141.4) < 1, `median ${g.medianHz}`);
  assert.ok(semitones(g.p10Hz, 100 * 2 ** 0.1) < 1 && semitones(g.p90Hz, 100 * 2 ** 0.9) < 1, `p10 ${g.p10Hz} p90 ${g.p90Hz}`);

  const hiss = measurePitch(noise(rate), rate);
  assert.ok(hiss.voicedFraction < 0.1, `noise voiced ${hiss.voicedFraction}`);
  const none = measurePitch(silence(1, rate), rate);
  assert.deepEqual(none, { medianHz: 0, p10Hz: 0, p90Hz: 0, voicedFraction: 0 });
  assert.equal(measurePitch(new Float32Array(100), rate).medianHz, 0);
});

test('espeak-ng -p 20 and -p 80 measure apart, in the right direction', { skip: SKIP_NO_ESPEAK }, async () => {
  const low = await speech('espeak-ng', ['-p', '20', TEXT], 'p20');
  const high = await speech('espeak-ng', ['-p', '80', TEXT], 'p80');
  const pl = measurePitch(low.samples, low.sampleRate);
  const ph = measurePitch(high.samples, high.sampleRate);
  assert.ok(ph.medianHz > pl.medianHz * 1.3, `p20 ${pl.medianHz} Hz, p80 ${ph.medianHz} Hz`);
  // Both are male-range voices; a doubled or halved estimate would land outside.
  for (const p of [pl, ph]) assert.ok(p.medianHz > 60 && p.medianHz < 200, `median ${p.medianHz}`);
  for (const p of [pl, ph]) assert.ok(p.p10Hz < p.medianHz && p.medianHz < p.p90Hz && p.p90Hz / p.p10Hz < 1.8);
});

test('flite at a set target pitch measures within a semitone of it', { skip: SKIP_NO_FLITE }, async () => {
  for (const target of [100, 180]) {
    const d = await speech('flite', ['-voice', 'slt', '--setf', `int_f0_target_mean=${target}`, '-t', SHORT_TEXT], `slt${target}`);
    const p = measurePitch(d.samples, d.sampleRate);
    assert.ok(semitones(p.medianHz, target) < 1, `target ${target} Hz, measured ${p.medianHz}`);
    assert.ok(p.voicedFraction > 0.4);
  }
  const kal = await speech('flite', ['-voice', 'kal16', '--setf', 'int_f0_target_mean=180', '-t', SHORT_TEXT], 'kal180');
  assert.ok(semitones(measurePitch(kal.samples, kal.sampleRate).medianHz, 180) < 1);
});

test('trimSilence cuts the edges, shortens long pauses and keeps short ones', () => {
  const rate = 16000;
  const floor = (x: Float32Array) => noise(x.length, 7).map((v) => v * 0.0003); // ~ -70 dBFS room noise
  const parts = [
    floor(silence(0.5, rate)),
    sine(200, 1, rate),
    floor(silence(1, rate)), // long: shortened to 0.3 s
    sine(200, 0.5, rate),
    floor(silence(0.2, rate)), // short: kept
    sine(200, 0.5, rate),
    floor(silence(0.7, rate)),
  ];
  const out = trimSilence(concatF32(parts), rate);
  const expected = 0.05 + 1 + 0.3 + 0.5 + 0.2 + 0.5 + 0.05;
  assert.ok(Math.abs(out.length / rate - expected) < 0.03, `${out.length / rate} s, expected ${expected}`);
  assert.equal(trimSilence(silence(1, rate), rate).length, 0);
  assert.equal(trimSilence(floor(silence(1, rate)), rate).length, 0);
  const click = silence(1, rate);
  click[8000] = 0.9;
  assert.equal(trimSilence(click, rate).length, 0, 'a single click is not speech');
});

test('measureSpeakingRate counts regular bursts', () => {
  const rate = 16000;
  for (const perSecond of [3, 5]) {
    const period = 1 / perSecond;
    const parts: Float32Array[] = [];
    for (let k = 0; k < perSecond * 4; k++) {
      parts.push(harmonics(140, [1, 0.5, 0.3], period * 0.55, rate));
      parts.push(silence(period * 0.45, rate));
    }
    const r = measureSpeakingRate(concatF32(parts), rate);
    assert.equal(r.syllables, perSecond * 4);
    assert.ok(Math.abs(r.syllablesPerSecond - perSecond) / perSecond < 0.1, `${r.syllablesPerSecond}/s for ${perSecond}/s`);
  }
  assert.deepEqual(measureSpeakingRate(silence(1, rate), rate), { syllables: 0, speechSeconds: 0, syllablesPerSecond: 0 });
});

test('measureSpeakingRate follows espeak-ng -s and ignores pitch', { skip: SKIP_NO_ESPEAK }, async () => {
  const slow = await speech('espeak-ng', ['-s', '120', TEXT], 's120');
  const fast = await speech('espeak-ng', ['-s', '240', TEXT], 's240');
  const rs = measureSpeakingRate(slow.samples, slow.sampleRate);
  const rf = measureSpeakingRate(fast.samples, fast.sampleRate);
  assert.ok(rf.syllablesPerSecond > rs.syllablesPerSecond * 1.4, `120 wpm ${rs.syllablesPerSecond}/s, 240 wpm ${rf.syllablesPerSecond}/s`);
  // The text has 19 syllables; the count is what stays put across rates.
  for (const r of [rs, rf]) assert.ok(Math.abs(r.syllables - 19) <= 3, `counted ${r.syllables}`);

  const a = measureSpeakingRate((await speech('espeak-ng', ['-p', '30', TEXT], 'r30')).samples, 22050);
  const b = measureSpeakingRate((await speech('espeak-ng', ['-p', '70', TEXT], 'r70')).samples, 22050);
  assert.ok(
    Math.abs(a.syllablesPerSecond - b.syllablesPerSecond) / a.syllablesPerSecond < 0.15,
    `${a.syllablesPerSecond} vs ${b.syllablesPerSecond}`,
  );
});

test('spectralFeatures separates tone, white noise and dark noise', () => {
  const rate = 24000;
  const white = noise(2 * rate);
  const brown = new Float32Array(white.length);
  let acc = 0;
  for (let i = 0; i < white.length; i++) {
    acc = 0.999 * acc + white[i] * 0.02; // integrated (leaky): -6 dB per octave
    brown[i] = acc;
  }
  const tone = spectralFeatures(sine(1000, 2, rate), rate);
  const w = spectralFeatures(
    white.map((v) => v * 0.3),
    rate,
  );
  const b = spectralFeatures(brown, rate);
  assert.ok(Math.abs(tone.centroidHz - 1000) < 60, `tone centroid ${tone.centroidHz}`);
  assert.ok(tone.flatness < 0.05, `tone flatness ${tone.flatness}`);
  assert.ok(Math.abs(w.tilt) < 1.5, `white tilt ${w.tilt}`);
  assert.ok(w.flatness > 0.4, `white flatness ${w.flatness}`);
  assert.ok(Math.abs(w.centroidHz - 4000) < 300, `white centroid ${w.centroidHz} (flat to 8 kHz)`);
  assert.ok(b.tilt < -4.5 && b.tilt > -7.5, `brown tilt ${b.tilt}`);
  assert.ok(b.centroidHz < w.centroidHz / 2);
  assert.ok(b.rolloffHz < w.rolloffHz);
  assert.deepEqual(spectralFeatures(silence(1, rate), rate), { centroidHz: 0, tilt: 0, rolloffHz: 0, flatness: 0 });
});

test('spectralFeatures gives finite, speech-like values for espeak-ng female and male variants', { skip: SKIP_NO_ESPEAK }, async () => {
  const f = await speech('espeak-ng', ['-v', 'en+f3', TEXT], 'f3');
  const m = await speech('espeak-ng', ['-v', 'en+m3', TEXT], 'm3');
  const sf = spectralFeatures(f.samples, f.sampleRate);
  const sm = spectralFeatures(m.samples, m.sampleRate);
  assert.ok(measurePitch(f.samples, f.sampleRate).medianHz > measurePitch(m.samples, m.sampleRate).medianHz * 1.4);
  assert.ok(sf.centroidHz > 300 && sm.centroidHz > 300);
  assert.ok(Number.isFinite(sf.tilt) && Number.isFinite(sm.tilt) && sf.tilt < 0 && sm.tilt < 0);
});
