// Where a voice's silence ends: the level a little over the noise its engine pads speech with, measured once
// per voice. Pieces are cut down to their speech while they render, before the
// piece's own noise floor could be known; and measured per piece the level moved with the sentence's length
// (flite slt: -57 dBFS for "Good morning," and -50 for a long sentence), so a sentence's pauses depended on
// what it was cut from. A fixed level per voice cuts the same sentence the same way in any request.
// It is measured on a short phrase and on the reference sentences, and the lower level wins: in the short
// phrase a padding engine's noise is a large share of the frames (flite pads ~0.2 s on each side), while on
// the long sentences alone slt's quietest tenth of frames was already speech, its level rose to the -48 dBFS
// bound and soft onsets were faded ("Feed the cat" was heard as "the the cat"; WER +2.3 points). An engine
// that pads with digital silence and little of it (espeak) shows its silence in the long sentences' pauses.
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

/** About 0.7 s of speech between the engine's own padding. */
const SHORT_PHRASE = 'Good morning.';
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
  const base: VoiceSpec = { engine: voice.engine, base: voice.base, ...(voice.variant !== undefined ? { variant: voice.variant } : {}) };
  const short = await render(engine, base, SHORT_PHRASE);
  const long = await render(engine, base, REFERENCE_TEXT);
  return { threshold: Math.min(noiseThreshold(short.samples, short.rate), noiseThreshold(long.samples, long.rate)), rate: long.rate };
}

async function render(engine: Engine, voice: VoiceSpec, text: string): Promise<{ samples: Float32Array; rate: number }> {
  const parts: Float32Array[] = [];
  let rate = engine.info.sampleRate;
  for await (const chunk of engine.synthesize(text, voice, { speed: 1 })) {
    parts.push(chunk.samples);
    rate = chunk.sampleRate;
  }
  return { samples: concatSamples(parts), rate };
}
