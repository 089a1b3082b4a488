// flite's own phones for words (its CMU lexicon, then letter-to-sound rules), as `flite -ps` prints them, for
// POST /v1/phonemize. Asks the thread's resident flite library (library.ts), which analyses without rendering.
import { toFliteText } from './engine.ts';
import { FliteLibrary } from './library.ts';

/** What `flite -ps` prints for `text`: the phones of every word, `pau` at each phrase break. */
function printSegments(text: string, voice: string): string {
  return FliteLibrary.load().phones(voice, toFliteText(text));
}

/** Phone groups between pauses. */
function groups(segments: string): string[] {
  return segments
    .split(/\bpau\b/)
    .map((g) => g.trim().replace(/\s+/g, ' '))
    .filter((g) => g !== '');
}

/**
 * flite's phones (its ARPAbet-like set, e.g. "hh ax l ow") for each word. One run with the words between commas,
 * which flite turns into pauses, so each word's phones come out on their own; when flite reads a piece as more or
 * fewer words than given (an abbreviation it expands), the words are run one by one instead.
 */
export async function flitePhones(words: readonly string[], voice: string): Promise<string[]> {
  if (words.length === 0) return [];
  const together = groups(printSegments(words.join(', '), voice));
  if (together.length === words.length) return together;
  const out: string[] = [];
  for (const w of words) out.push(groups(printSegments(w, voice)).join(' '));
  return out;
}
