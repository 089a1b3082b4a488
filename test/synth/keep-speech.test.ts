// No phoneme is lost between the engine and the client: for every engine, the service's /v1/speak output
// is compared with the engine's own output for the same pieces of text (rendered here, in-process). Each
// piece is found in the response by cross-correlation, and every 10 ms of the engine's audio must come
// out at (nearly) its own level: a trimmed or faded soft onset (p, f, th) or word-final fricative would
// show as a frame the response lacks. Loudness normalization is off, so levels compare directly.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fft, nextPowerOfTwo } from '../../src/audio/analysis/fft.ts';
import { resampleAll } from '../../src/audio/resample.ts';
import { concatSamples } from '../../src/audio/samples.ts';
import { installNeuralModels } from '../../src/synth/neural-models.ts';
import { loadEngine } from '../../src/synth/registry.ts';
import { prepareMapped } from '../../src/synth/text/index.ts';
import { verbatim } from '../../src/synth/text/mapped.ts';
import { createLevelStage } from '../../src/synth/voice-loudness.ts';
import type { VoiceSpec } from '../../src/synth/voice-spec.ts';
import { getBuiltinVoice } from '../../src/voices/builtin.ts';
import { scanVoicesDir } from '../../src/voices/neural-catalog.ts';
import { writeVoicesDir } from '../helpers/onnx-models.ts';
import { useService } from '../helpers/fixture.ts';
import { decodePcm16, render } from './helpers.ts';

const RATE = 24000;
const FRAME = RATE / 100;
// Anything the response may lack stays under this level, or under the engine's own padding noise (flite's
// reaches -53 dBFS) where that is louder.
const LOST_LEVEL = 10 ** (-54 / 20);
// A frame of the engine's audio must come out at this fraction of its level or more (resampling at a
// half-sample offset and the limiter's smoothing change levels by far less).
const KEPT_FRACTION = 0.8;
const LOUD_LEVEL = 10 ** (-40 / 20);

const voicesDir = mkdtempSync(join(tmpdir(), 'voxsmith-keep-speech-'));
// Written before the server starts, which reads it (the before() hooks at the top of a file run side by side).
writeVoicesDir(voicesDir);
const specs = new Map<string, VoiceSpec>();

before(async () => {
  const catalog = await scanVoicesDir(voicesDir);
  installNeuralModels(catalog.models);
  for (const v of catalog.voices) if (v.spec) specs.set(v.id, v.spec);
});
const s = useService({ env: { VOICES_DIR: voicesDir, WORKERS: '1', LOUDNESS_TARGET_LUFS: 'off' }, user: 'keep-speech@example.com' });
after(async () => {
  rmSync(voicesDir, { recursive: true, force: true });
});

function specOf(voiceId: string): VoiceSpec {
  const spec = getBuiltinVoice(voiceId)?.spec ?? specs.get(voiceId);
  assert.ok(spec, `no voice ${voiceId}`);
  return spec;
}

async function speak(text: string, voiceId: string): Promise<Float32Array> {
  const res = await s.call('/v1/speak', { json: { text, voice_id: voiceId, format: 'pcm' } });
  assert.equal(res.status, 200, await res.clone().text());
  return decodePcm16(new Uint8Array(await res.arrayBuffer()));
}

/**
 * The engine's own audio for each piece the service renders, at the output rate, through the same
 * peak limiter (which lowers loud peaks, never edges).
 */
async function nativePieces(text: string, voice: VoiceSpec): Promise<Float32Array[]> {
  const engine = await loadEngine(voice.engine);
  const sentences = prepareMapped(verbatim(text), { english: true });
  // Each sentence whole, as the pipeline renders it.
  const pieces = sentences;
  const out: Float32Array[] = [];
  for (const p of pieces) {
    const a = await render(engine, p.text, voice);
    const level = createLevelStage(RATE);
    out.push(concatSamples([level.process(await resampleAll(a.samples, a.rate, RATE)), level.flush()]));
  }
  return out;
}

/** The loudest 10 ms frame more than 80 ms before `loud` (the engine's padding, when it pads). */
function paddingLevel(y: Float32Array, loud: number): number {
  let loudest = 0;
  for (let at = 0; at + FRAME < loud - 0.08 * RATE; at += FRAME / 2) loudest = Math.max(loudest, frameRms(y, at));
  return loudest;
}

/**
 * Where y[0] lies in x (>= from; negative when the start of y is not in x), found by cross-correlation
 * through the FFT.
 */
function align(x: Float32Array, y: Float32Array, from: number): number {
  const n = nextPowerOfTwo(x.length + y.length);
  const xr = new Float64Array(n);
  const xi = new Float64Array(n);
  const yr = new Float64Array(n);
  const yi = new Float64Array(n);
  xr.set(x);
  yr.set(y);
  fft(xr, xi);
  fft(yr, yi);
  // X * conj(Y), transformed back (the inverse as the forward transform of the conjugate).
  const pr = new Float64Array(n);
  const pi = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    pr[k] = xr[k] * yr[k] + xi[k] * yi[k];
    pi[k] = -(xi[k] * yr[k] - xr[k] * yi[k]);
  }
  fft(pr, pi);
  // Negative lags wrap around to the end of the circular correlation.
  const at = (lag: number): number => pr[(lag + n) % n];
  let best = from;
  for (let lag = Math.max(from, -y.length); lag < x.length; lag++) if (at(lag) > at(best)) best = lag;
  return best;
}

function frameRms(x: Float32Array, at: number): number {
  let sum = 0;
  for (let i = at; i < at + FRAME; i++) {
    const v = i >= 0 && i < x.length ? x[i] : 0;
    sum += v * v;
  }
  return Math.sqrt(sum / FRAME);
}

interface Placed {
  /** Where (in the response) the piece's first loud frame starts and its last one ends. */
  speechStart: number;
  speechEnd: number;
}

// espeak's timing varies by a few milliseconds between runs, so a frame may be found this far from
// where the alignment of the whole piece puts it; a clipped soft onset is longer than that.
const SLACK = Math.round(0.015 * RATE);
const SLACK_STEP = Math.round(0.0025 * RATE);

function keptNear(x: Float32Array, at: number): number {
  let best = 0;
  for (let d = -SLACK; d <= SLACK; d += SLACK_STEP) best = Math.max(best, frameRms(x, at + d));
  return best;
}

/** Finds each piece in the response and checks that none of its audible frames went missing. */
function checkKept(response: Float32Array, pieces: Float32Array[], label: string): Placed[] {
  const placed: Placed[] = [];
  let previousEnd = 0;
  for (const [k, y] of pieces.entries()) {
    // Its first loud frame comes after the previous piece's last one.
    let loud = 0;
    while (loud < y.length && frameRms(y, loud) <= LOUD_LEVEL) loud += FRAME;
    const quiet = Math.max(LOST_LEVEL, Math.min(LOUD_LEVEL, 1.2 * paddingLevel(y, loud)));
    const lag = align(response, y, previousEnd - loud);
    let audible = 0;
    for (let at = 0; at < y.length; at += FRAME) {
      const native = frameRms(y, at);
      if (native <= quiet) continue;
      audible++;
      const kept = keptNear(response, lag + at);
      assert.ok(
        kept >= KEPT_FRACTION * native,
        `${label}, piece ${k}: the frame at ${(at / RATE).toFixed(3)} s of the engine's audio is at ${(20 * Math.log10(native)).toFixed(1)} dBFS natively but ${(20 * Math.log10(kept + 1e-9)).toFixed(1)} dBFS in the response`,
      );
    }
    assert.ok(audible > 0, `${label}, piece ${k}: the engine rendered nothing audible`);
    let lastLoud = y.length - FRAME;
    while (lastLoud > 0 && frameRms(y, lastLoud) <= LOUD_LEVEL) lastLoud -= FRAME;
    placed.push({ speechStart: lag + loud, speechEnd: lag + lastLoud + FRAME });
    previousEnd = lag + lastLoud;
  }
  return placed;
}

/** Audible 10 ms frames and energy. */
function totals(x: Float32Array): { frames: number; energy: number } {
  let frames = 0;
  let energy = 0;
  for (let at = 0; at < x.length; at += FRAME) if (frameRms(x, at) > LOST_LEVEL) frames++;
  for (const v of x) energy += v * v;
  return { frames, energy };
}

/**
 * For the generated neural test models, whose audio is a plain sine (so alignment by correlation is
 * ambiguous): the response holds as many audible frames and as much energy as the pieces together.
 */
function checkTotals(response: Float32Array, pieces: Float32Array[], label: string): void {
  const got = totals(response);
  const want = pieces.map(totals).reduce((a, b) => ({ frames: a.frames + b.frames, energy: a.energy + b.energy }));
  assert.ok(got.frames >= want.frames - pieces.length, `${label}: ${got.frames} audible frames, the engine made ${want.frames}`);
  assert.ok(Math.abs(got.energy / want.energy - 1) < 0.03, `${label}: energy ${got.energy} vs the engine's ${want.energy}`);
}

/** The audible span of the response (first and last sample over the level). */
function span(x: Float32Array): Placed {
  let first = 0;
  while (first < x.length && Math.abs(x[first]) <= LOST_LEVEL) first++;
  let last = x.length - 1;
  while (last > first && Math.abs(x[last]) <= LOST_LEVEL) last--;
  return { speechStart: first, speechEnd: last + 1 };
}

const VOICE_IDS = ['flite-slt', 'flite-kal16', 'flite-awb', 'espeak-en-us-male-1', 'piper-en-us-testset-medium', 'kokoro-af-alpha'];
const SHORT = ['Please close the door.', 'Fresh bread is ready.', 'Thank you for coming.', 'The doctor is here.'];
const SINES = new Set(['piper', 'kokoro']);

describe('every phoneme of the engine reaches the client', () => {
  for (const voiceId of VOICE_IDS) {
    test(`${voiceId}: soft onsets and endings of whole sentences`, async () => {
      const voice = specOf(voiceId);
      for (const text of SHORT) {
        const response = await speak(text, voiceId);
        const pieces = await nativePieces(text, voice);
        assert.equal(pieces.length, 1, 'a four-word sentence is one piece');
        const sine = SINES.has(voice.engine);
        if (sine) checkTotals(response, pieces, `${voiceId} "${text}"`);
        const [p] = sine ? [span(response)] : checkKept(response, pieces, `${voiceId} "${text}"`);
        // The response starts with a little silence, not with the consonant.
        assert.ok(
          span(response).speechStart >= 0.004 * RATE,
          `${voiceId} "${text}": sound starts ${span(response).speechStart / RATE} s in`,
        );
        assert.ok(p.speechStart >= 0.004 * RATE, `${voiceId} "${text}": speech starts ${p.speechStart / RATE} s in`);
      }
    });

    test(`${voiceId}: two sentences, each rendered whole, and their join`, async () => {
      const voice = specOf(voiceId);
      const text = 'The children walked to school. Please close the door.';
      const response = await speak(text, voiceId);
      const pieces = await nativePieces(text, voice);
      // No sentence is cut for an early start: the first audio leaves while the engine renders the whole sentence.
      assert.equal(pieces.length, 2, 'one piece per sentence');
      if (SINES.has(voice.engine)) {
        checkTotals(response, pieces, `${voiceId} joins`);
        return;
      }
      const placed = checkKept(response, pieces, `${voiceId} joins`);
      const [b, c] = placed;
      const pause = (c.speechStart - b.speechEnd) / RATE;
      assert.ok(pause > 0.3 && pause < 0.8, `${voiceId}: pause between sentences ${pause} s`);
    });
  }
});
