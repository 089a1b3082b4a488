// Where a voice's silence ends: the level a little over the noise its engine pads speech with, measured once
// per voice on the reference sentences. Pieces are cut down to their speech while they render, before the
// piece's own noise floor could be known; and measured per piece the level moved with the sentence's length
// (flite slt: -57 dBFS for "Good morning," and -50 for a long sentence), so a sentence's pauses depended on
// what it was cut from. A fixed level per voice cuts the same sentence the same way in any request.
import type { Engine } from './engine.ts';
import { concatSamples, noiseThreshold } from './shaping.ts';
import { REFERENCE_TEXT } from './voice-loudness.ts';
import type { VoiceSpec } from './voice-spec.ts';

export interface VoiceNoise {
  /** Frame level (RMS) at or under which the voice's output is silence. */
  threshold: number;
  /** The rate its engine renders it at. */
  rate: number;
}

const CACHE_SIZE = 256;
const measured = new Map<string, Promise<VoiceNoise>>();

/** An engine's padding noise does not follow the voice's controls (rate, pitch, formants): only its base. */
const noiseKey = (voice: VoiceSpec): string => JSON.stringify([voice.engine, voice.base, voice.variant ?? null]);

/** The voice's silence level and rate; measured on first use, then cached for the thread. */
export function voiceNoise(engine: Engine, voice: VoiceSpec): Promise<VoiceNoise> {
  const key = noiseKey(voice);
  let noise = measured.get(key);
  if (!noise) {
    noise = measure(engine, voice);
    // A failed measurement is not remembered: the next request tries again.
    noise.catch(() => measured.delete(key));
    if (measured.size >= CACHE_SIZE) measured.delete(measured.keys().next().value as string);
    measured.set(key, noise);
  }
  return noise;
}

async function measure(engine: Engine, voice: VoiceSpec): Promise<VoiceNoise> {
  const parts: Float32Array[] = [];
  let rate = engine.info.sampleRate;
  const base: VoiceSpec = { engine: voice.engine, base: voice.base, ...(voice.variant !== undefined ? { variant: voice.variant } : {}) };
  for await (const chunk of engine.synthesize(REFERENCE_TEXT, base, { speed: 1 })) {
    parts.push(chunk.samples);
    rate = chunk.sampleRate;
  }
  return { threshold: noiseThreshold(concatSamples(parts), rate), rate };
}
