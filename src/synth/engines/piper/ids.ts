// The phoneme ids a Piper voice reads, made by the rules of piper-phonemize (1.1.0, the version its published
// voices were trained with): espeak-ng's IPA clause by clause, decomposed (NFD: "ç" is "c" + U+0327), each
// clause followed by the punctuation that ended it — ". ? !" as they are, ", : ;" with a space after, a dash as
// "; " (espeak ends a clause at a dash as at a semicolon), nothing after an ellipsis, an inverted mark or the end
// of the text — and a new sentence after ". ? !". Each sentence is one model run: "^", "_", then each phoneme's
// ids followed by "_", then "$". Phonemes the voice does not know are skipped, as Piper does.
import type { ClauseMark } from '../espeak/clauses.ts';
import { phonemizeClauses } from '../espeak/phonemize.ts';
import { forkIpa } from './fork-ipa.ts';

export const PIPER_BOS = '^';
export const PIPER_EOS = '$';
export const PIPER_PAD = '_';

export interface PiperIds {
  ids: number[];
  /** Index in `ids` where each spoken word starts (punctuation excluded). */
  wordStarts: number[];
}

/** A clause as the phonemizer gives it (espeak/phonemize.ts phonemizeClauses). */
export interface PiperClause {
  words: string[];
  mark: ClauseMark;
  endsSentence: boolean;
}

/** What piper-phonemize appends after a clause, by what ended it. */
export function clauseEnding(mark: ClauseMark): string {
  switch (mark) {
    case '.':
    case '?':
    case '!':
      return mark;
    case ',':
    case ':':
    case ';':
      return `${mark} `;
    case 'dash':
      return '; ';
    default:
      return '';
  }
}

/** The clauses grouped into sentences: a sentence ends after ". ? !" (and at the end of the text). */
function sentencesOf(clauses: readonly PiperClause[]): PiperClause[][] {
  const out: PiperClause[][] = [];
  let current: PiperClause[] = [];
  for (const c of clauses) {
    current.push(c);
    if (c.endsSentence) {
      out.push(current);
      current = [];
    }
  }
  if (current.length > 0) out.push(current);
  return out.filter((s) => s.some((c) => c.words.length > 0));
}

/** One sentence as ids, with where each word starts. A clause follows the previous one's ending directly. */
function sentenceIds(clauses: readonly PiperClause[], map: Readonly<Record<string, number[]>>): PiperIds {
  const pad = map[PIPER_PAD] ?? [];
  // piper-phonemize intersperses the pad after BOS too.
  const ids: number[] = [...(map[PIPER_BOS] ?? []), ...pad];
  const wordStarts: number[] = [];
  const put = (text: string) => {
    for (const p of text.normalize('NFD')) {
      const mapped = map[p];
      if (mapped) ids.push(...mapped, ...pad);
    }
  };
  for (const c of clauses) {
    c.words.forEach((w, i) => {
      if (i > 0) put(' ');
      wordStarts.push(ids.length);
      put(w);
    });
    put(clauseEnding(c.mark));
  }
  ids.push(...(map[PIPER_EOS] ?? []));
  return { ids, wordStarts };
}

/** The id sequences of `clauses`: one per sentence, each a model run. */
export function piperSentences(clauses: readonly PiperClause[], map: Readonly<Record<string, number[]>>): PiperIds[] {
  return sentencesOf(clauses).map((s) => sentenceIds(s, map));
}

/** The id sequences a Piper voice reads for `text`, in its espeak voice and with its phoneme_id_map: one per model run. */
export async function piperIds(text: string, espeakVoice: string, map: Readonly<Record<string, number[]>>): Promise<PiperIds[]> {
  return piperSentences(await phonemizeClauses(text, espeakVoice, forkIpa(espeakVoice)), map);
}

/** The sentence-ending mark Piper keeps (espeak drops punctuation from its phonemes). */
export function finalMarkOf(text: string): string | undefined {
  const m = /([.!?])["')\]]*\s*$/.exec(text);
  return m?.[1];
}
