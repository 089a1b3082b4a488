// A long sentence of a long reading (or a later sentence of any request), cut into clause-sized pieces when
// others on its thread need a turn soon (the render loop decides, piece by piece: pipeline.ts cutsNow). A piece
// renders in one synchronous engine call, and a worker thread serves the other requests it interleaves only
// between pieces: behind a whole 25-word sentence (~70 ms of flite on an idle core, two or three times that on
// a busy one) a newcomer's first audio waited far longer than its own first piece takes. Cuts come only where
// the engine itself would phrase: after a clause's punctuation (the pause there stays a clause pause), and in a
// clause still too long, before a conjunction or relative word that opens the next one. Short sentences stay
// whole, so their prosody is the engine's.
import type { Break, MappedSentence } from './index.ts';
import { sliceMapped } from './mapped.ts';
import { CLAUSE_END, opensClause } from './phrases.ts';

/** A sentence of fewer words stays whole. */
const MIN_WORDS_TO_CUT = 12;
/** No piece of fewer words: a short fragment would be spoken as a sentence of its own. */
const MIN_PIECE_WORDS = 4;
/** A clause longer than this is cut again before a phrase start. */
const MAX_CLAUSE_WORDS = 14;

interface Word {
  text: string;
  start: number;
  end: number;
}

/** Where a piece ends: after words[end - 1], and what follows it. */
interface Cut {
  end: number;
  break: Break;
}

/** The sentence in clause-sized pieces, or whole when it is short or has no place to cut. */
export function cutAtClauses(sentence: MappedSentence): MappedSentence[] {
  const words: Word[] = [...sentence.text.matchAll(/\S+/g)].map((m) => ({
    text: m[0],
    start: m.index ?? 0,
    end: (m.index ?? 0) + m[0].length,
  }));
  if (words.length < MIN_WORDS_TO_CUT) return [sentence];
  const cuts: Cut[] = [];
  let from = 0;
  for (let n = MIN_PIECE_WORDS; n <= words.length - MIN_PIECE_WORDS; n++) {
    if (n - from >= MIN_PIECE_WORDS && CLAUSE_END.test(words[n - 1].text)) {
      cuts.push(...phraseCuts(words, from, n), { end: n, break: 'clause' });
      from = n;
    }
  }
  cuts.push(...phraseCuts(words, from, words.length));
  if (cuts.length === 0) return [sentence];
  const pieces: MappedSentence[] = [];
  let start = 0;
  for (const cut of cuts) {
    const end = words[cut.end - 1].end;
    const mapped = sliceMapped(sentence.mapped, start, end);
    pieces.push({ text: mapped.text, mapped, break: cut.break });
    start = words[cut.end].start;
  }
  const mapped = sliceMapped(sentence.mapped, start);
  pieces.push({ text: mapped.text, mapped, break: sentence.break });
  return pieces;
}

/** Cuts inside words[from, to) before words that open a clause, so no part is longer than MAX_CLAUSE_WORDS if it can be helped. */
function phraseCuts(words: readonly Word[], from: number, to: number): Cut[] {
  if (to - from <= MAX_CLAUSE_WORDS) return [];
  // The clause opening nearest the middle that leaves both parts long enough.
  const middle = (from + to) / 2;
  let best = -1;
  for (let n = from + MIN_PIECE_WORDS; n <= to - MIN_PIECE_WORDS; n++) {
    if (opensClause(words[n - 1].text, words[n].text) && (best < 0 || Math.abs(n - middle) < Math.abs(best - middle))) best = n;
  }
  if (best < 0) return [];
  return [...phraseCuts(words, from, best), { end: best, break: 'none' }, ...phraseCuts(words, best, to)];
}
