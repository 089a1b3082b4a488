// IPA phonemes from espeak-ng, the way Piper and Kokoro were trained (both read espeak-ng's IPA output).
// A module instance of its own: phonemizing never disturbs the voice the espeak engine has selected.
import { findEspeakVoice } from './info.ts';
import { loadEspeakModule, type EspeakRawModule, type EspeakRawWorker } from './module.ts';

/** The phonemes of one piece of text. */
export interface Phonemes {
  /** IPA per word, in text order; clause breaks inside the text are their own entry, `,`. */
  words: string[];
}

let instance: Promise<{ m: EspeakRawModule; w: EspeakRawWorker }> | undefined;
let currentVoice = '';

async function load(): Promise<{ m: EspeakRawModule; w: EspeakRawWorker }> {
  const m = await loadEspeakModule();
  // The same worker class as the engine's, with the phonemes call the engine does not use.
  return { m, w: new m.eSpeakNGWorker() };
}

const decoder = new TextDecoder();

function cString(heap: Uint8Array, ptr: number): string {
  let end = ptr;
  while (heap[end] !== 0 && end < heap.length) end++;
  return decoder.decode(heap.subarray(ptr, end));
}

/**
 * espeak-ng's IPA for `text` in `voice` (an espeak voice name such as `en-us`). espeak separates phonemes
 * with `_`, words with spaces and clauses with ` | `; the separators are removed here.
 */
export async function phonemize(text: string, voice: string): Promise<Phonemes> {
  instance ??= load();
  const { m, w } = await instance;
  if (voice !== currentVoice) {
    const name = findEspeakVoice(voice)?.identifier ?? voice;
    if (w.set_voice(name) !== 0) throw new Error(`espeak-ng has no voice ${JSON.stringify(voice)} for phonemes`);
    currentVoice = voice;
  }
  const raw = cString(m.HEAPU8, m.getPointer(w.text_to_phonemes(text, 1)));
  const words: string[] = [];
  for (const token of raw.split(/\s+/)) {
    if (token === '') continue;
    if (token === '|') words.push(',');
    else words.push(token.replaceAll('_', ''));
  }
  return { words };
}
