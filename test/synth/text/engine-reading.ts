// What an engine says for a text, as phonemes: espeak-ng's IPA (the espeak voices, and the phonemes Piper and
// Kokoro speak) and flite's phones (the default voice). Used to tell whether the text the service gives an engine
// is read like a reference spoken form, whatever spelling differences there are ("forty-eight" and "forty eight").
import { phonemize } from '../../../src/synth/engines/espeak/phonemize.ts';
import { toFliteText } from '../../../src/synth/engines/flite/engine.ts';
import { FliteLibrary } from '../../../src/synth/engines/flite/library.ts';
import { prepareText } from '../../../src/synth/text/index.ts';

/**
 * espeak-ng's phonemes without stress marks, clause breaks and word breaks: what is said, not its prosody
 * ("forty-eight" is one word to espeak, "forty eight" two, and both are said alike).
 */
export async function espeakReading(text: string, voice = 'en-us'): Promise<string> {
  const words = (await phonemize(text, voice)).words.filter((w) => w !== ',');
  return words.join('').replace(/[ˈˌ\s]/g, '');
}

/** flite's phones for the text as the engine is given it, without pauses. */
export function fliteReading(text: string, voice = 'slt'): string {
  return FliteLibrary.load()
    .phones(voice, toFliteText(text))
    .replace(/\bpau\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The pieces the service hands the engines for `written` (normalized, split into sentences). */
export function servicePieces(written: string): string[] {
  return prepareText(written, { english: true }).map((p) => p.text);
}

export interface Reading {
  espeak: boolean;
  flite: boolean;
  normalized: string;
}

/** Whether each engine reads the service's text for `written` as one of the accepted spoken forms. */
export async function readsAsSpoken(written: string, accepted: readonly string[]): Promise<Reading> {
  const pieces = servicePieces(written);
  let espeak = '';
  let flite = '';
  for (const p of pieces) {
    espeak += ` ${await espeakReading(p)}`;
    flite += ` ${fliteReading(p)}`;
  }
  espeak = espeak.trim();
  flite = flite.trim();
  let espeakOk = false;
  let fliteOk = false;
  for (const spoken of accepted) {
    if (!espeakOk && (await espeakReading(spoken)) === espeak) espeakOk = true;
    if (!fliteOk && fliteReading(spoken) === flite) fliteOk = true;
  }
  return { espeak: espeakOk, flite: fliteOk, normalized: pieces.join(' ') };
}
