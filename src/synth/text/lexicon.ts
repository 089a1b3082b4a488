// Pronunciation lexicon rules as the worker applies them: carried in SpeechRequest.lexicon (so the
// synthesis cache keys on them) and applied to the parsed script before normalization, so "WHO" is matched as
// written rather than after "$5" or "Dr." were spelled out.
//
// Matching is a trie over tokens (runs of letters, digits and marks, or single other characters), walked from
// each token of the text: time grows with the text times the longest grapheme (at most 100 characters), never
// with the number of rules, so thousands of long rules cost what a few do.
import { createHash } from 'node:crypto';
import type { PhonemeAlphabet } from '../../schemas/lexicons.ts';
import { sliceTextRun, sourceOffsetOf, type Script, type ScriptPiece, type TextRun } from './script.ts';

/** One rule: say `alias` instead of `grapheme`, or pronounce `grapheme` as `phoneme` (in `alphabet`, ipa by default). */
export interface LexiconEntry {
  grapheme: string;
  alias?: string;
  phoneme?: string;
  alphabet?: PhonemeAlphabet;
}

/** A word (letters, digits, marks, underscores: what no match may cut into) or any other single non-space character. */
const TOKEN = /[\p{L}\p{N}\p{M}_]+|\S/gu;
const WORD_START = /^[\p{L}\p{N}\p{M}_]/u;

interface Token {
  start: number;
  end: number;
  /** Case and Unicode composition do not matter: NFC, lower case. */
  key: string;
  word: boolean;
  /** White space comes before it (a grapheme's space matches any run of white space, but not none). */
  spaced: boolean;
}

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    const start = m.index;
    out.push({
      start,
      end: start + m[0].length,
      key: m[0].normalize('NFC').toLowerCase(),
      word: WORD_START.test(m[0]),
      spaced: start > last,
    });
    last = start + m[0].length;
  }
  return out;
}

/** How a token is reached from the one before it in a grapheme: by its key, after white space or not. */
const edge = (t: Token, first: boolean): string => (first || !t.spaced ? t.key : ` ${t.key}`);

interface TrieNode {
  next: Map<string, TrieNode>;
  rule?: LexiconEntry;
}

// Lexicons repeat across requests (an account default) and a trie of thousands of rules costs more to build than
// to walk, so the last few are kept, by a digest of their rules (not the rules themselves: they can be megabytes).
const tries = new Map<string, TrieNode>();
const MAX_TRIES = 16;

function trieFor(rules: readonly LexiconEntry[]): TrieNode | undefined {
  const digest = createHash('sha256').update(JSON.stringify(rules)).digest('base64');
  const cached = tries.get(digest);
  if (cached) return cached;
  const root: TrieNode = { next: new Map() };
  let size = 0;
  for (const rule of rules) {
    const tokens = tokenize(rule.grapheme);
    if (tokens.length === 0) continue;
    let node = root;
    for (const [i, t] of tokens.entries()) {
      const key = edge(t, i === 0);
      let child = node.next.get(key);
      if (!child) node.next.set(key, (child = { next: new Map() }));
      node = child;
    }
    // Earlier rules win (the request's first lexicon, then the next).
    if (!node.rule) {
      node.rule = rule;
      size++;
    }
  }
  if (size === 0) return undefined;
  if (tries.size >= MAX_TRIES) tries.delete(tries.keys().next().value as string);
  tries.set(digest, root);
  return root;
}

/**
 * The rule matched at token `i`, if any: the longest grapheme starting there. A match is a whole word: no letter,
 * digit, mark or underscore touches it on either side (which only a grapheme that begins or ends with another
 * character, such as ".NET" or "Dr.", needs checking for).
 */
function longestAt(tokens: readonly Token[], i: number, root: TrieNode): { last: number; rule: LexiconEntry } | undefined {
  if (i > 0 && !tokens[i].spaced && tokens[i - 1].word) return undefined;
  let best: { last: number; rule: LexiconEntry } | undefined;
  let node = root.next.get(edge(tokens[i], true));
  for (let j = i; node;) {
    const next = tokens[j + 1];
    if (node.rule && (next === undefined || next.spaced || !next.word)) best = { last: j, rule: node.rule };
    if (next === undefined) break;
    node = node.next.get(edge(next, false));
    j++;
  }
  return best;
}

function applyToRun(run: TextRun, root: TrieNode): ScriptPiece[] {
  const tokens = tokenize(run.text);
  const out: ScriptPiece[] = [];
  let last = 0;
  for (let i = 0; i < tokens.length; i++) {
    const found = longestAt(tokens, i, root);
    if (!found) continue;
    const start = tokens[i].start;
    const end = tokens[found.last].end;
    const { rule } = found;
    if (start > last) out.push(sliceTextRun(run, last, start));
    const offset = sourceOffsetOf(run, start);
    const span = { offset, length: sourceOffsetOf(run, end) - offset, text: run.text.slice(start, end), context: run.context };
    if (rule.alias !== undefined) out.push({ type: 'sub', alias: rule.alias, ...span });
    else if (rule.phoneme !== undefined) out.push({ type: 'phoneme', ph: rule.phoneme, alphabet: rule.alphabet ?? 'ipa', ...span });
    else out.push(sliceTextRun(run, start, end));
    last = end;
    i = found.last;
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
  const root = trieFor(rules);
  if (!root) return script;
  return { ...script, pieces: script.pieces.flatMap((p) => (p.type === 'text' ? applyToRun(p, root) : [p])) };
}
