import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createResampler, resampleAll, type Resampler } from '../../src/audio/resample.ts';
import { lightFilterFits } from '../../src/audio/resamplers/filter-choice.ts';
import { createPolyphaseResampler, resamplerFilter } from '../../src/audio/resamplers/polyphase.ts';
import { loadSpeex, SpeexResampler, speexQuality } from '../../src/audio/resamplers/speex.ts';
import { concatF32, rms, semitones, sine, toneFrequency } from './signals.ts';

const PAIRS: Array<[number, number]> = [
  [22050, 24000],
  [16000, 24000],
  [8000, 24000],
  [24000, 8000],
  [48000, 24000],
  [44100, 16000],
  [8000, 48000],
];

const IMPLEMENTATIONS: Record<string, (inRate: number, outRate: number) => Promise<Resampler>> = {
  polyphase: async (inRate, outRate) => {
    const r = createPolyphaseResampler(inRate, outRate);
    assert.ok(r, `no polyphase table for ${inRate} -> ${outRate}`);
    return r;
  },
  speex: async (inRate, outRate) => new SpeexResampler(await loadSpeex(), inRate, outRate),
};

function run(r: Resampler, x: Float32Array, step: number): Float32Array {
  const parts: Float32Array[] = [];
  for (let i = 0; i < x.length; i += step) parts.push(r.process(x.subarray(i, i + step)));
  parts.push(r.flush());
  return concatF32(parts);
}

/** Level of the `freq` component of x, in dB relative to a full-scale sine (Goertzel over the middle). */
function levelDb(x: Float32Array, rate: number, freq: number): number {
  const y = x.subarray(Math.floor(x.length / 4), Math.floor((3 * x.length) / 4));
  const w = (2 * Math.PI * freq) / rate;
  let re = 0;
  let im = 0;
  for (let i = 0; i < y.length; i++) {
    // Hann window: the leakage of the strong tone must not pass for an image.
    const h = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (y.length - 1));
    re += y[i] * h * Math.cos(w * i);
    im -= y[i] * h * Math.sin(w * i);
  }
  return 20 * Math.log10((4 * Math.hypot(re, im)) / y.length + 1e-12);
}

// Every resampler meets the same contract: the shared suite runs once per implementation.
for (const [name, make] of Object.entries(IMPLEMENTATIONS)) {
  describe(`${name} resampler`, () => {
    for (const [inRate, outRate] of PAIRS) {
      test(`${inRate} -> ${outRate} keeps a sine's frequency, level, length and timing`, async () => {
        const x = sine(220, 1.5, inRate);
        // Odd chunk sizes exercise the streaming state across calls.
        const y = run(await make(inRate, outRate), x, 777);
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

    for (const [inRate, outRate] of [
      [22050, 24000],
      [8000, 48000],
    ] as const) {
      // 0.8 s is more than one kernel call's worth of input either way: one-shot crosses blocks too.
      test(`streaming output equals one-shot output (${inRate} -> ${outRate})`, async () => {
        const x = sine(330, 0.8, inRate);
        const whole = run(await make(inRate, outRate), x, x.length);
        const chunked = run(await make(inRate, outRate), x, 100);
        assert.equal(chunked.length, whole.length);
        for (let i = 0; i < whole.length; i++) assert.ok(Math.abs(chunked[i] - whole[i]) < 1e-5);
      });
    }

    test('output shorter than the filter comes out whole at flush', async () => {
      const x = sine(440, 0.002, 22050);
      const y = run(await make(22050, 24000), x, 7);
      assert.equal(y.length, Math.round((x.length * 24000) / 22050));
    });

    test('the speech band keeps its level through the lighter filter (22 050 -> 24 000) and the full one (16 000 -> 24 000)', async () => {
      for (const [inRate, freq] of [
        [22050, 7000],
        [22050, 8000],
        [16000, 7000],
      ] as const) {
        const x = sine(freq, 0.5, inRate);
        const y = run(await make(inRate, 24000), x, x.length);
        const db = 20 * Math.log10(rms(y.subarray(500, -500)) / rms(x));
        assert.ok(Math.abs(db) < 0.5, `${freq} Hz from ${inRate} Hz: ${db.toFixed(2)} dB`);
      }
    });

    test('images and aliases stay at least 60 dB down', async () => {
      // Up: a 9 kHz tone at 22 050 Hz has its image at 13 050 Hz, which a 24 kHz output would fold to 10 950 Hz.
      const up = run(await make(22050, 24000), sine(9000, 1, 22050), 22050);
      assert.ok(levelDb(up, 24000, 10950) - levelDb(up, 24000, 9000) < -60, `image ${levelDb(up, 24000, 10950).toFixed(1)} dB`);
      // Down: a 15 kHz tone at 48 kHz is above the 24 kHz output's Nyquist; it would fold to 9 kHz.
      const down = run(await make(48000, 24000), sine(15000, 1, 48000), 48000);
      assert.ok(levelDb(down, 24000, 9000) < -66, `alias ${levelDb(down, 24000, 9000).toFixed(1)} dB`);
    });

    test('dispose frees the state and later process calls fail', async () => {
      const r = await make(16000, 24000);
      r.process(sine(100, 0.1, 16000));
      r.dispose();
      r.dispose();
      assert.throws(() => r.process(new Float32Array(10)));
      assert.equal(r.flush().length, 0);
    });
  });
}

test('the two resamplers agree within the speech band', async () => {
  const x = new Float32Array(22050);
  for (const [f, a] of [
    [180, 0.3],
    [1200, 0.2],
    [3100, 0.15],
    [6500, 0.1],
  ]) {
    const s = sine(f, 1, 22050, a);
    for (let i = 0; i < x.length; i++) x[i] += s[i];
  }
  const a = run(createPolyphaseResampler(22050, 24000)!, x, 4000);
  const b = run(new SpeexResampler(await loadSpeex(), 22050, 24000), x, 4000);
  let worst = 0;
  for (let i = 200; i < a.length - 200; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  assert.ok(worst < 0.005, `largest difference ${worst}`);
});

test('both choose the lighter filter only where it holds the speech band', () => {
  assert.equal(lightFilterFits(22050, 24000), true);
  assert.equal(lightFilterFits(16000, 24000), false);
  assert.equal(speexQuality(22050, 24000), 3);
  assert.equal(speexQuality(24000, 8000), 5);
  assert.equal(resamplerFilter(22050, 24000).taps, 48);
  assert.equal(resamplerFilter(16000, 24000).taps, 80);
});

test('a rate pair with too large a table falls back to speex, with the same contract', async () => {
  assert.equal(createPolyphaseResampler(22051, 24000), undefined);
  const x = sine(220, 0.5, 22051);
  const y = run(await createResampler(22051, 24000), x, 1000);
  assert.equal(y.length, Math.round((x.length * 24000) / 22051));
  assert.ok(semitones(toneFrequency(y, 24000), 220) < 0.02);
});

test('equal rates pass samples through unchanged', async () => {
  const r = await createResampler(24000, 24000);
  const x = sine(100, 0.1, 24000);
  assert.deepEqual(r.process(x), x);
  assert.equal(r.flush().length, 0);
});

test('invalid rates are refused', async () => {
  await assert.rejects(createResampler(0, 24000), RangeError);
  await assert.rejects(createResampler(22050.5, 24000), RangeError);
});

test('resampleAll resamples a whole buffer', async () => {
  const x = sine(300, 0.3, 16000);
  const y = await resampleAll(x, 16000, 24000);
  assert.equal(y.length, Math.round((x.length * 24000) / 16000));
});
