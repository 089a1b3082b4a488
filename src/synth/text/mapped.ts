// Text that remembers where each of its characters came from in the request string, so normalization
// ("$5.20" -> "five dollars and twenty cents") and SSML expansion keep word timings pointing at what the user
// wrote. Each UTF-16 unit of `text` carries the source span [starts[i], ends[i]) it stands for.

import type { TextRun } from './script.ts';

export interface MappedText {
  text: string;
  starts: number[];
  ends: number[];
}

/** `text` found verbatim at `offset` of the source. */
export function verbatim(text: string, offset = 0): MappedText {
  const starts = new Array<number>(text.length);
  const ends = new Array<number>(text.length);
  for (let i = 0; i < text.length; i++) {
    starts[i] = offset + i;
    ends[i] = offset + i + 1;
  }
  return { text, starts, ends };
}

/** A script's text run as MappedText: by its map, or as the verbatim slice of the request it is. */
export function mappedRun(run: TextRun): MappedText {
  if (!run.map) return verbatim(run.text, run.offset);
  const map = run.map;
  return {
    text: run.text,
    starts: map.slice(0, run.text.length),
    ends: run.text.split('').map((_, i) => Math.max(map[i] + 1, map[i + 1])),
  };
}

/** `text` that stands, as a whole, for the source span [start, end) (an alias, a spelled-out number). */
export function standingFor(text: string, start: number, end: number): MappedText {
  return { text, starts: new Array<number>(text.length).fill(start), ends: new Array<number>(text.length).fill(end) };
}

export function concatMapped(parts: readonly MappedText[]): MappedText {
  if (parts.length === 1) return parts[0];
  // Plain loops: flatMap took 80 % of normalizing a 10 000-character text full of numbers (hundreds of parts,
  // once per rule).
  const starts: number[] = [];
  const ends: number[] = [];
  for (const p of parts) {
    for (let i = 0; i < p.starts.length; i++) {
      starts.push(p.starts[i]);
      ends.push(p.ends[i]);
    }
  }
  return { text: parts.map((p) => p.text).join(''), starts, ends };
}

export function sliceMapped(m: MappedText, start: number, end = m.text.length): MappedText {
  return { text: m.text.slice(start, end), starts: m.starts.slice(start, end), ends: m.ends.slice(start, end) };
}

/** The source span of m.text[start, end) (empty at the nearest character when the range is empty). */
export function spanOf(m: MappedText, start: number, end: number): { offset: number; length: number } {
  if (m.text.length === 0) return { offset: 0, length: 0 };
  const s = Math.max(0, Math.min(m.text.length - 1, start));
  const e = Math.max(s + 1, Math.min(m.text.length, end));
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = s; i < e; i++) {
    lo = Math.min(lo, m.starts[i]);
    hi = Math.max(hi, m.ends[i]);
  }
  return { offset: lo, length: Math.max(0, hi - lo) };
}

/**
 * Replaces every match of the global regex `re` by `fn`'s answer (undefined keeps the match); the new text
 * stands for the whole matched source span. `fn` sees the match and the text being rewritten.
 */
export function replaceMapped(m: MappedText, re: RegExp, fn: (match: RegExpExecArray, text: string) => string | undefined): MappedText {
  const { text } = m;
  const parts: MappedText[] = [];
  let last = 0;
  re.lastIndex = 0;
  for (let match = re.exec(text); match; match = re.exec(text)) {
    if (match[0] === '') {
      re.lastIndex++;
      continue;
    }
    const replacement = fn(match, text);
    if (replacement === undefined) continue;
    const end = match.index + match[0].length;
    if (match.index > last) parts.push(sliceMapped(m, last, match.index));
    if (replacement.length > 0) {
      const span = spanOf(m, match.index, end);
      parts.push(standingFor(replacement, span.offset, span.offset + span.length));
    }
    last = end;
  }
  if (parts.length === 0 && last === 0) return m;
  if (last < text.length) parts.push(sliceMapped(m, last));
  return parts.length === 0 ? { text: '', starts: [], ends: [] } : concatMapped(parts);
}

/** Without leading and trailing white space. */
export function trimMapped(m: MappedText): MappedText {
  const start = m.text.length - m.text.trimStart().length;
  const end = m.text.trimEnd().length;
  return start === 0 && end === m.text.length ? m : sliceMapped(m, start, Math.max(start, end));
}

/**
 * Where `piece` (text derived from m.text by trimming and turning white space runs into single spaces, as
 * sentence splitting does) starts and ends in m.text, searching from `from`; undefined if it is not there.
 */
export function locate(m: MappedText, piece: string, from: number): { start: number; end: number } | undefined {
  const hay = m.text;
  let i = from;
  while (i < hay.length && /\s/.test(hay[i])) i++;
  const start = i;
  for (let j = 0; j < piece.length; j++) {
    if (/\s/.test(piece[j])) {
      if (i >= hay.length || !/\s/.test(hay[i])) return undefined;
      while (i < hay.length && /\s/.test(hay[i])) i++;
      while (j + 1 < piece.length && /\s/.test(piece[j + 1])) j++;
    } else {
      if (hay[i] !== piece[j]) return undefined;
      i++;
    }
  }
  return { start, end: i };
}
