import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createResampler, resampleAll, speexQuality } from '../../src/audio/resample.ts';
import { concatF32, rms, semitones, sine, toneFrequency } from './signals.ts';

const PAIRS: Array<[number, number]> = [
  [22050, 24000],
  [16000, 24000],
  [8000, 24000],
  [24000, 8000],
  [48000, 24000],
];

for (const [inRate, outRate] of PAIRS) {
  test(`resampler ${inRate} -> ${outRate} keeps a sine's frequency, level and length`, async () => {
    const x = sine(220, 1.5, inRate);
    const r = await createResampler(inRate, outRate);
    const parts: Float32Array[] = [];
    // Odd chunk sizes exercise the streaming state across calls.
    for (let i = 0, step = 777; i < x.length; i += step) parts.push(r.process(x.subarray(i, i + step)));
    parts.push(r.flush());
    const y = concatF32(parts);
    assert.equal(y.length, Math.round((x.length * outRate) / inRate));
    assert.ok(semitones(toneFrequency(y, outRate), 220) < 0.02, `frequency ${toneFrequency(y, outRate)}`);
    assert.ok(Math.abs(rms(y.subarray(200, -200)) - rms(x)) < 0.01);
    // Aligned with the ideal resampled sine: no latency shift at the start.
    let worst = 0;
    for (let i = 100; i < y.length - 100; i++) {
      worst = Math.max(worst, Math.abs(y[i] - 0.5 * Math.sin((2 * Math.PI * 220 * i) / outRate)));
    }
    assert.ok(worst < 0.01, `max deviation from ideal ${worst}`);
  });
}

test('streaming output equals one-shot output', async () => {
  const x = sine(330, 0.8, 22050);
  const whole = await resampleAll(x, 22050, 24000);
  const r = await createResampler(22050, 24000);
  const parts: Float32Array[] = [];
  for (let i = 0; i < x.length; i += 100) parts.push(r.process(x.subarray(i, i + 100)));
  parts.push(r.flush());
  const chunked = concatF32(parts);
  assert.equal(chunked.length, whole.length);
  for (let i = 0; i < whole.length; i++) assert.ok(Math.abs(chunked[i] - whole[i]) < 1e-5);
});

test('equal rates pass samples through unchanged', async () => {
  const r = await createResampler(24000, 24000);
  const x = sine(100, 0.1, 24000);
  assert.deepEqual(r.process(x), x);
  assert.equal(r.flush().length, 0);
});

test('dispose frees the state and later process calls fail', async () => {
  const r = await createResampler(16000, 24000);
  r.process(sine(100, 0.1, 16000));
  r.dispose();
  r.dispose();
  assert.throws(() => r.process(new Float32Array(10)));
  assert.equal(r.flush().length, 0);
});

test('invalid rates are refused', async () => {
  await assert.rejects(createResampler(0, 24000), RangeError);
  await assert.rejects(createResampler(22050.5, 24000), RangeError);
});

test('the speech band up to 7 kHz keeps its level through the lighter filter (22 050 -> 24 000) and the full one (16 000 -> 24 000)', async () => {
  assert.equal(speexQuality(22050, 24000), 3);
  assert.equal(speexQuality(16000, 24000), 5);
  assert.equal(speexQuality(24000, 8000), 5);
  for (const [inRate, freq] of [[22050, 7000], [22050, 8000], [16000, 7000]] as const) {
    const x = sine(freq, 0.5, inRate);
    const y = await resampleAll(x, inRate, 24000);
    const db = 20 * Math.log10(rms(y.subarray(500, -500)) / rms(x));
    assert.ok(Math.abs(db) < 0.5, `${freq} Hz from ${inRate} Hz: ${db.toFixed(2)} dB`);
  }
});
