// IPA phonemes from espeak-ng, the way Piper and Kokoro were trained (both read espeak-ng's IPA output).
// A module instance of its own: phonemizing never disturbs the voice the espeak engine has selected.
import { espeakClauses, type ClauseMark } from './clauses.ts';
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

async function ready(voice: string): Promise<{ m: EspeakRawModule; w: EspeakRawWorker }> {
  instance ??= load();
  const loaded = await instance;
  if (voice !== currentVoice) {
    const name = findEspeakVoice(voice)?.identifier ?? voice;
    if (loaded.w.set_voice(name) !== 0) throw new Error(`espeak-ng has no voice ${JSON.stringify(voice)} for phonemes`);
    currentVoice = voice;
  }
  return loaded;
}

/** espeak's raw phoneme string for `text`: phonemes separated by `_`, words by spaces, clauses by ` | `. */
function rawPhonemes(loaded: { m: EspeakRawModule; w: EspeakRawWorker }, text: string): string {
  return cString(loaded.m.HEAPU8, loaded.m.getPointer(loaded.w.text_to_phonemes(text, 1)));
}

/** One clause's phonemes and how it ended (see clauses.ts). */
export interface PhonemeClause {
  /** IPA per word, language-switch flags such as "(en)" removed. */
  words: string[];
  mark: ClauseMark;
  endsSentence: boolean;
}

/** Words of one clause of espeak's output: separators dropped, "(fr)"-style language flags removed. */
function clauseWords(raw: string): string[] {
  return raw
    .replace(/\([a-z]{2,3}(?:-[a-z0-9]+)?\)/gi, '')
    .split(/\s+/)
    .map((w) => w.replaceAll('_', ''))
    .filter((w) => w !== '');
}

/**
 * espeak-ng's IPA for `text` clause by clause, with the punctuation that ended each clause (which espeak's
 * phonemes leave out): what Piper's phonemizer gives its voices. Each clause is phonemized on its own, as
 * espeak translates one clause at a time; a clause espeak breaks further (too long for its buffer) gives
 * parts ended by nothing.
 */
export async function phonemizeClauses(text: string, voice: string): Promise<PhonemeClause[]> {
  const loaded = await ready(voice);
  const out: PhonemeClause[] = [];
  for (const clause of espeakClauses(text)) {
    const parts = rawPhonemes(loaded, clause.text).split(' | ');
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      out.push({ words: clauseWords(part), mark: last ? clause.mark : null, endsSentence: last && clause.endsSentence });
    });
  }
  return out;
}

/**
 * espeak-ng's IPA for `text` in `voice` (an espeak voice name such as `en-us`). espeak separates phonemes
 * with `_`, words with spaces and clauses with ` | `; the separators are removed here.
 */
export async function phonemize(text: string, voice: string): Promise<Phonemes> {
  const raw = rawPhonemes(await ready(voice), text);
  const words: string[] = [];
  for (const token of raw.split(/\s+/)) {
    if (token === '') continue;
    if (token === '|') words.push(',');
    else words.push(token.replaceAll('_', ''));
  }
  return { words };
}

/**
 * The phonemes of each word of one sentence, in the voice `voice`. The sentence is phonemized as a whole (as the
 * engine speaks it, so "the" before a vowel and stress in context come out as spoken); where espeak joins words
 * ("on the" → "ɔnðə") the count no longer matches and each word is phonemized on its own instead.
 */
export async function wordPhonemes(sentence: string, words: readonly string[], voice: string): Promise<string[]> {
  if (words.length === 0) return [];
  const whole = (await phonemize(sentence, voice)).words.filter((w) => w !== ',');
  if (whole.length === words.length) return whole;
  const out: string[] = [];
  for (const w of words) out.push((await phonemize(w, voice)).words.filter((p) => p !== ',').join(' '));
  return out;
}
