// Pronunciation lexicon rules as the worker applies them (contract 4): carried in SpeechRequest.lexicon (so the
// synthesis cache keys on them) and applied to the parsed script before normalization, so "WHO" is matched as
// written rather than after "$5" or "Dr." were spelled out.
import type { PhonemeAlphabet } from '../../schemas/lexicons.ts';
import { sliceTextRun, sourceOffsetOf, type Script, type ScriptPiece, type TextRun } from './script.ts';

/** One rule: say `alias` instead of `grapheme`, or pronounce `grapheme` as `phoneme` (in `alphabet`, ipa by default). */
export interface LexiconEntry {
  grapheme: string;
  alias?: string;
  phoneme?: string;
  alphabet?: PhonemeAlphabet;
}

/** How a matched grapheme is looked up: case and white space do not matter. */
const keyOf = (s: string): string => s.normalize('NFC').replace(/\s+/g, ' ').trim().toLowerCase();

// Only syntax characters: the `u` flag refuses any other escape (such as `\-`).
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

interface Matcher {
  re: RegExp;
  byKey: Map<string, LexiconEntry>;
}

// Lexicons repeat across requests (an account default), and a pattern of a few thousand graphemes costs more to
// compile than to run, so the last few are kept.
const matchers = new Map<string, Matcher>();
const MAX_MATCHERS = 16;

function matcherFor(rules: readonly LexiconEntry[]): Matcher | undefined {
  const cacheKey = JSON.stringify(rules);
  const cached = matchers.get(cacheKey);
  if (cached) return cached;
  const byKey = new Map<string, LexiconEntry>();
  for (const r of rules) {
    const k = keyOf(r.grapheme);
    // Earlier rules win (the request's first lexicon, then the next).
    if (k !== '' && !byKey.has(k)) byKey.set(k, r);
  }
  if (byKey.size === 0) return undefined;
  // Longest first: at one position the alternation takes the first that matches, so "New York City" beats "New York".
  const keys = [...byKey.keys()].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  const alternatives = keys.map((k) => escape(k).replace(/ /g, '\\s+'));
  // Whole words: no letter, digit or underscore may touch a match on either side.
  const re = new RegExp(`(?<![\\p{L}\\p{N}\\p{M}_])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}\\p{M}_])`, 'giu');
  const matcher = { re, byKey };
  if (matchers.size >= MAX_MATCHERS) matchers.delete(matchers.keys().next().value as string);
  matchers.set(cacheKey, matcher);
  return matcher;
}

function applyToRun(run: TextRun, m: Matcher): ScriptPiece[] {
  const out: ScriptPiece[] = [];
  let last = 0;
  m.re.lastIndex = 0;
  for (const match of run.text.matchAll(m.re)) {
    const rule = m.byKey.get(keyOf(match[0]));
    if (!rule) continue; // a case fold the regex and toLowerCase disagree on: leave the word alone
    const start = match.index;
    const end = start + match[0].length;
    if (start > last) out.push(sliceTextRun(run, last, start));
    const offset = sourceOffsetOf(run, start);
    const span = { offset, length: sourceOffsetOf(run, end) - offset, text: match[0], context: run.context };
    if (rule.alias !== undefined) out.push({ type: 'sub', alias: rule.alias, ...span });
    else if (rule.phoneme !== undefined) out.push({ type: 'phoneme', ph: rule.phoneme, alphabet: rule.alphabet ?? 'ipa', ...span });
    else out.push(sliceTextRun(run, start, end));
    last = end;
  }
  if (last === 0) return [run];
  if (last < run.text.length) out.push(sliceTextRun(run, last, run.text.length));
  return out;
}

/**
 * The script with every whole-word, case-insensitive match of a rule's grapheme in its text runs replaced: an
 * alias becomes a `sub` run (the alias is spoken, the span stays the written word), a phoneme a `phoneme` run, as
 * if the SSML had said so. Runs the markup already set (sub, phoneme, say-as) are left as written.
 */
export function applyLexicon(script: Script, rules: readonly LexiconEntry[] | undefined): Script {
  if (!rules || rules.length === 0) return script;
  const m = matcherFor(rules);
  if (!m) return script;
  return { ...script, pieces: script.pieces.flatMap((p) => (p.type === 'text' ? applyToRun(p, m) : [p])) };
}
