// Whether a voice speaks at all, checked by rendering on the main thread: for the catalog generator and the
// catalog tests only (the service never loads an engine outside its worker threads).
import { concatSamples } from '../../src/audio/samples.ts';
import type { Engine } from '../../src/synth/engine.ts';
import type { VoiceSpec } from '../../src/synth/voice-spec.ts';

// Digits are spoken by nearly every voice; the other texts cover voices that skip digits.
const PROBE_TEXTS: readonly string[] = ['1 2 3', 'Hello, world.', 'mae govannen'];
// Below this much audible signal on every probe text a voice counts as silent.
const MIN_AUDIBLE_SECONDS = 0.15;
// |sample| above 1000 of 32768, about -30 dBFS: clearly audible.
const AUDIBLE_LEVEL = 1000 / 32768;

/** Everything the engine yields for one text, as one block at the engine's rate. */
export async function renderWhole(engine: Engine, voice: VoiceSpec, text: string): Promise<{ samples: Float32Array; rate: number }> {
  const parts: Float32Array[] = [];
  let rate = engine.info.sampleRate;
  for await (const c of engine.synthesize(text, voice, { speed: 1 })) {
    parts.push(c.samples);
    rate = c.sampleRate;
  }
  return { samples: concatSamples(parts), rate };
}

/** Seconds of clearly audible signal. */
export function audibleSeconds(samples: Float32Array, rate: number): number {
  let loud = 0;
  for (const s of samples) if (s > AUDIBLE_LEVEL || s < -AUDIBLE_LEVEL) loud++;
  return loud / rate;
}

/** Whether any probe text gives audible speech; throws if the engine cannot select the voice. */
export async function speaks(engine: Engine, voice: VoiceSpec): Promise<boolean> {
  for (const text of PROBE_TEXTS) {
    const { samples, rate } = await renderWhole(engine, voice, text);
    if (audibleSeconds(samples, rate) >= MIN_AUDIBLE_SECONDS) return true;
  }
  return false;
}
