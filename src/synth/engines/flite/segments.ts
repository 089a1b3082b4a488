// flite's own timing of what it said, turned into word times. The library reads every segment (phone or
// pause) with its end time in seconds, as `flite -psdur` prints them; which word each phone belongs to comes from the words'
// phones said one by one (flite's lexicon and letter-to-sound rules, cached), aligned to the sentence's phones
// by edit distance, because flite changes a few phones in context ("the" is "dh ax" or "dh iy").

/** A segment and its end time from `-psdur`-style text ("pau:0.164 hh:0.255 ..."). */
export interface Segment {
  phone: string;
  end: number;
}

export function parseSegments(lines: readonly string[]): Segment[] {
  const out: Segment[] = [];
  // Several utterances may print a line each, timed from their own start; their audio follows one another.
  let offset = 0;
  for (const line of lines) {
    const base = offset;
    for (const token of line.trim().split(/\s+/)) {
      const m = /^([a-z]+):(\d+(?:\.\d+)?)$/.exec(token);
      if (!m) continue;
      out.push({ phone: m[1], end: base + Number(m[2]) });
      offset = base + Number(m[2]);
    }
  }
  return out;
}

/** `-ps` output of words said one per utterance, split at the pauses between them: one phone list per word. */
export function splitAtPauses(lines: readonly string[]): string[][] {
  const groups: string[][] = [];
  let current: string[] = [];
  for (const line of lines) {
    for (const phone of line.trim().split(/\s+/)) {
      if (phone === '') continue;
      if (phone === 'pau') {
        if (current.length > 0) groups.push(current);
        current = [];
      } else {
        current.push(phone);
      }
    }
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/** For each word, its first and last segment index in `segments`, or undefined when no phone of it was found. */
export function alignWords(
  segments: readonly Segment[],
  words: readonly (readonly string[])[],
): ({ first: number; last: number } | undefined)[] {
  const said = segments.map((s, i) => ({ phone: s.phone, i })).filter((s) => s.phone !== 'pau');
  const expected: { phone: string; word: number }[] = [];
  words.forEach((phones, w) => phones.forEach((phone) => expected.push({ phone, word: w })));
  const n = said.length;
  const m = expected.length;
  // Edit distance with back-pointers; n and m are a sentence's phones (a few hundred at most).
  const cost = new Uint32Array((n + 1) * (m + 1));
  const at = (i: number, j: number): number => i * (m + 1) + j;
  for (let i = 0; i <= n; i++) cost[at(i, 0)] = i;
  for (let j = 0; j <= m; j++) cost[at(0, j)] = j;
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      const sub = cost[at(i - 1, j - 1)] + (said[i - 1].phone === expected[j - 1].phone ? 0 : 1);
      cost[at(i, j)] = Math.min(sub, cost[at(i - 1, j)] + 1, cost[at(i, j - 1)] + 1);
    }
  }
  // Each said phone takes the word of the expected phone it is matched (or substituted) with; an inserted
  // phone takes the word of its neighbour.
  const wordOf = new Array<number>(n).fill(-1);
  let i = n;
  let j = m;
  while (i > 0 && j > 0) {
    const c = cost[at(i, j)];
    if (c === cost[at(i - 1, j - 1)] + (said[i - 1].phone === expected[j - 1].phone ? 0 : 1)) {
      wordOf[i - 1] = expected[j - 1].word;
      i--;
      j--;
    } else if (c === cost[at(i - 1, j)] + 1) {
      wordOf[i - 1] = expected[Math.max(0, j - 1)].word;
      i--;
    } else {
      j--;
    }
  }
  for (let k = 0; k < n; k++) if (wordOf[k] < 0) wordOf[k] = k > 0 ? wordOf[k - 1] : (expected[0]?.word ?? -1);
  const out: ({ first: number; last: number } | undefined)[] = words.map(() => undefined);
  for (let k = 0; k < n; k++) {
    const w = wordOf[k];
    if (w < 0) continue;
    const seg = said[k].i;
    const cur = out[w];
    if (!cur) out[w] = { first: seg, last: seg };
    else cur.last = Math.max(cur.last, seg);
  }
  return out;
}
