import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { createLimiter } from '../../src/audio/limiter.ts';
import { dbToGain, integratedLoudness } from '../../src/audio/loudness.ts';
import { concatSamples } from '../../src/audio/samples.ts';
import { loadEngine } from '../../src/synth/registry.ts';
import { render } from '../synth/helpers.ts';
import { SKIP_NO_FFMPEG, TempDir } from './ffmpeg.ts';

const tmp = new TempDir();
after(() => tmp.remove());

function sine(rate: number, hz: number, amplitude: number, seconds: number, phase = 0): Float32Array {
  return Float32Array.from({ length: Math.round(rate * seconds) }, (_, i) => amplitude * Math.sin((2 * Math.PI * hz * i) / rate + phase));
}

/**
 * ffmpeg's ebur128 filter on float samples: integrated loudness, and the true peak (dBFS) as the sample
 * peak after soxr's 4x oversampling (ebur128's own true peak reads up to 0.5 dB high near a 24 kHz
 * stream's Nyquist frequency: its default resampler rings).
 */
function ffmpegR128(x: Float32Array, rate: number, name: string): { integrated: number; truePeak: number } {
  const path = tmp.file(`${name}.f32`, new Uint8Array(x.buffer, x.byteOffset, x.byteLength));
  const meter = (filter: string): string => {
    const r = spawnSync(
      'ffmpeg',
      ['-hide_banner', '-nostats', '-f', 'f32le', '-ar', String(rate), '-ac', '1', '-i', path, '-af', filter, '-f', 'null', '-'],
      { encoding: 'utf8' },
    );
    assert.equal(r.status, 0, r.stderr);
    return r.stderr.slice(r.stderr.lastIndexOf('Summary:'));
  };
  return {
    integrated: Number(/I:\s+(-?[\d.]+) LUFS/.exec(meter('ebur128'))?.[1]),
    truePeak: Number(/Peak:\s+(-?[\d.]+) dBFS/.exec(meter(`aresample=${rate * 4}:resampler=soxr:precision=28,ebur128=peak=sample`))?.[1]),
  };
}

function limitAll(x: Float32Array, rate: number, ceiling: number, gain = 1, chunk = x.length): Float32Array {
  const l = createLimiter(rate, ceiling, gain);
  const parts: Float32Array[] = [];
  for (let at = 0; at < x.length; at += chunk) parts.push(l.process(x.subarray(at, at + chunk)));
  parts.push(l.flush());
  return concatSamples(parts);
}

const peakOf = (x: Float32Array): number => x.reduce((p, v) => Math.max(p, Math.abs(v)), 0);

describe('integrated loudness (BS.1770)', () => {
  test('a 1 kHz sine at -20 dBFS reads about -23 LUFS at any rate', () => {
    for (const rate of [16000, 24000, 48000]) {
      const l = integratedLoudness(sine(rate, 1000, 0.1, 5), rate);
      assert.ok(Math.abs(l - -23) < 0.2, `${rate} Hz: ${l}`);
    }
  });

  test('silence is below the absolute gate; pauses do not lower speech', () => {
    assert.equal(integratedLoudness(new Float32Array(48000), 48000), -Infinity);
    const tone = sine(24000, 500, 0.2, 3);
    const withPauses = concatSamples([tone, new Float32Array(48000), tone, new Float32Array(48000)]);
    // Only the blocks straddling an edge count a little lower; 4 s of silence count not at all.
    assert.ok(Math.abs(integratedLoudness(withPauses, 24000) - integratedLoudness(tone, 24000)) < 0.5);
  });

  test('speech: agrees with ffmpeg ebur128 within 0.3 LU', { skip: SKIP_NO_FFMPEG }, async () => {
    const engine = await loadEngine('flite');
    for (const base of ['slt', 'kal16']) {
      const a = await render(engine, 'A sentence or two of speech, to be measured by two independent loudness meters.', {
        engine: 'flite',
        base,
      });
      const ours = integratedLoudness(a.samples, a.rate);
      const theirs = ffmpegR128(a.samples, a.rate, `speech-${base}`).integrated;
      assert.ok(Math.abs(ours - theirs) < 0.3, `${base}: ours ${ours.toFixed(2)}, ffmpeg ${theirs}`);
    }
  });
});

describe('true-peak limiter', () => {
  const rate = 24000;
  const ceiling = dbToGain(-1);

  test('quiet audio passes unchanged, late by the look-ahead and complete after flush', () => {
    const x = sine(rate, 440, 0.5, 1);
    const y = limitAll(x, rate, ceiling);
    assert.equal(y.length, x.length);
    assert.deepEqual(y, x);
  });

  test('a stream shorter than the look-ahead comes out whole at flush, and several limiters run side by side', () => {
    const a = createLimiter(rate, ceiling);
    const b = createLimiter(rate, ceiling, 4);
    const x = Float32Array.of(0.1, -0.2, 0.3, -0.4, 0.05);
    assert.equal(a.process(x).length, 0);
    assert.equal(b.process(x).length, 0);
    assert.deepEqual(a.flush(), x);
    // b raised 0.4 to 1.6, over the ceiling: every sample comes out, the loud one pulled under it.
    const y = b.flush();
    assert.equal(y.length, x.length);
    assert.ok(peakOf(y) <= ceiling + 1e-6 && peakOf(y) > 0.5, `peak ${peakOf(y)}`);
  });

  test('chunking does not change the output', () => {
    // 1.5 s: whole, it spans three of the kernel's blocks; in chunks of 37, it is fed sample runs across them.
    const x = sine(rate, 300, 1.6, 1.5);
    assert.deepEqual(limitAll(x, rate, ceiling, 1, 37), limitAll(x, rate, ceiling));
  });

  test('loud audio, gained or not, stays under the ceiling, also between samples', { skip: SKIP_NO_FFMPEG }, () => {
    // A quarter-rate sine at 45 degrees: every sample is at 0.71 of the wave's true peak.
    const x = concatSamples([sine(rate, rate / 4, 0.9, 0.5, Math.PI / 4), sine(rate, 220, 0.3, 0.5), sine(rate, 3000, 0.6, 0.5, 0.3)]);
    const y = limitAll(x, rate, ceiling, 2.5);
    assert.equal(y.length, x.length);
    assert.ok(peakOf(y) <= ceiling + 1e-6, `sample peak ${peakOf(y)}`);
    const { truePeak } = ffmpegR128(y, rate, 'limited');
    assert.ok(truePeak <= -0.8, `true peak ${truePeak} dBFS`);
    // The gain is released again: the quiet middle part is not left squashed.
    const middle = y.subarray(Math.round(rate * 0.7), Math.round(rate * 0.9));
    assert.ok(peakOf(middle) > 0.7, `middle peak ${peakOf(middle)}`);
  });
});
