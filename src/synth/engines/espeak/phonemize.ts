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

/**
 * espeak's raw phoneme string for `text`: phonemes separated by `_`, words by spaces, clauses by ` | `. In IPA,
 * or (ipa false) in espeak's own phoneme names, phoneme for phoneme the same sequence.
 */
function rawPhonemes(loaded: { m: EspeakRawModule; w: EspeakRawWorker }, text: string, ipa = true): string {
  return cString(loaded.m.HEAPU8, loaded.m.getPointer(loaded.w.text_to_phonemes(text, ipa ? 1 : 0)));
}

/** Gives a phoneme's IPA anew from espeak's name for it (stress marks removed) and the IPA espeak wrote. */
export type PhonemeRewrite = (name: string, ipa: string) => string;

/**
 * `ipa` with each phoneme passed through `rewrite`, lined up with `names` (the same text in phoneme names).
 * Words whose phonemes do not line up one for one, or that switch language ("(fr)"), are left as they are.
 */
function rewritePhonemes(ipa: string, names: string, rewrite: PhonemeRewrite): string {
  const words = ipa.split(' ');
  const named = names.split(' ');
  if (words.length !== named.length) return ipa;
  return words
    .map((word, i) => {
      const phonemes = word.split('_');
      const ids = named[i].split('_');
      if (phonemes.length !== ids.length || word.includes('(')) return word;
      // espeak's names carry the stress before them: ' primary, , secondary, % and = unstressed.
      return phonemes.map((p, j) => rewrite(ids[j].replace(/^[',%=]+/, ''), p)).join('_');
    })
    .join(' ');
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
 * parts ended by nothing. `rewrite`, if given, may change the IPA of single phonemes (see PhonemeRewrite).
 */
export async function phonemizeClauses(text: string, voice: string, rewrite?: PhonemeRewrite): Promise<PhonemeClause[]> {
  const loaded = await ready(voice);
  const out: PhonemeClause[] = [];
  for (const clause of espeakClauses(text)) {
    const ipa = rawPhonemes(loaded, clause.text);
    const parts = (rewrite ? rewritePhonemes(ipa, rawPhonemes(loaded, clause.text, false), rewrite) : ipa).split(' | ');
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      out.push({ words: clauseWords(part), mark: last ? clause.mark : null, endsSentence: last && clause.endsSentence });
    });
  }
  return out;
}

/**
 * espeak-ng's IPA for `text` in `voice` (an espeak voice name such as `en-us`). espeak separates phonemes
 * with `_`, words with spaces and clauses with ` | `; the separators are removed here. `rewrite` as in
 * phonemizeClauses.
 */
export async function phonemize(text: string, voice: string, rewrite?: PhonemeRewrite): Promise<Phonemes> {
  const loaded = await ready(voice);
  const ipa = rawPhonemes(loaded, text);
  const raw = rewrite ? rewritePhonemes(ipa, rawPhonemes(loaded, text, false), rewrite) : ipa;
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
export async function wordPhonemes(sentence: string, words: readonly string[], voice: string, rewrite?: PhonemeRewrite): Promise<string[]> {
  if (words.length === 0) return [];
  const whole = (await phonemize(sentence, voice, rewrite)).words.filter((w) => w !== ',');
  if (whole.length === words.length) return whole;
  const out: string[] = [];
  for (const w of words) out.push((await phonemize(w, voice, rewrite)).words.filter((p) => p !== ',').join(' '));
  return out;
}
