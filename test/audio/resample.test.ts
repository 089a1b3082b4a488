import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createResampler, resampleAll } from '../../src/audio/resample.ts';
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
