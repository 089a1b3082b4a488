import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { applyLexicon, type LexiconEntry } from '../../../src/synth/text/lexicon.ts';
import { plainScript, type Script, type ScriptPiece } from '../../../src/synth/text/script.ts';

const rules: LexiconEntry[] = [
  { grapheme: 'WHO', alias: 'World Health Organization' },
  { grapheme: 'New York', alias: 'the Big Apple' },
  { grapheme: 'New York City', alias: 'NYC proper' },
  { grapheme: 'tomato', phoneme: 't@"mA:t@U', alphabet: 'x-sampa' },
  { grapheme: 'C++', alias: 'C plus plus' },
  { grapheme: 'Zürich', phoneme: 'ˈtsyːrɪç' },
];

const pieces = (text: string): ScriptPiece[] => applyLexicon(plainScript(text), rules).pieces;

test('an alias becomes a sub run spanning the written word; the rest keeps its spans', () => {
  const text = 'Ask the who, not WHOever.';
  assert.deepEqual(pieces(text), [
    { type: 'text', text: 'Ask the ', offset: 0, length: 8, context: {} },
    { type: 'sub', alias: 'World Health Organization', text: 'who', offset: 8, length: 3, context: {} },
    { type: 'text', text: ', not WHOever.', offset: 11, length: 14, context: {} },
  ]);
});

test('longest grapheme first, white space inside a grapheme matches any run of it', () => {
  const out = pieces('From New  York City to New York.');
  const subs = out.filter((p) => p.type === 'sub');
  assert.deepEqual(
    subs.map((p) => [p.type === 'sub' && p.alias, p.type === 'sub' && p.text]),
    [
      ['NYC proper', 'New  York City'],
      ['the Big Apple', 'New York'],
    ],
  );
});

test('a phoneme rule becomes a phoneme run in its alphabet (ipa by default); graphemes with symbols and accents match whole', () => {
  const out = pieces('Tomato in Zürich, C++ and tomatoes.');
  const special = out.filter((p) => p.type !== 'text');
  assert.deepEqual(special, [
    { type: 'phoneme', ph: 't@"mA:t@U', alphabet: 'x-sampa', text: 'Tomato', offset: 0, length: 6, context: {} },
    { type: 'phoneme', ph: 'ˈtsyːrɪç', alphabet: 'ipa', text: 'Zürich', offset: 10, length: 6, context: {} },
    { type: 'sub', alias: 'C plus plus', text: 'C++', offset: 18, length: 3, context: {} },
  ]);
});

test('runs set by markup are left alone; text runs keep their context and source map', () => {
  const script: Script = {
    pieces: [
      { type: 'sub', alias: 'who', text: 'WHO', offset: 0, length: 3, context: {} },
      { type: 'text', text: 'the WHO', offset: 10, length: 20, map: [10, 12, 14, 16, 18, 20, 25, 30], context: { rate: 0.5 } },
    ],
  };
  const out = applyLexicon(script, rules).pieces;
  assert.deepEqual(out[0], script.pieces[0]);
  assert.deepEqual(out[1], { type: 'text', text: 'the ', offset: 10, length: 8, map: [10, 12, 14, 16, 18], context: { rate: 0.5 } });
  assert.deepEqual(out[2], {
    type: 'sub',
    alias: 'World Health Organization',
    text: 'WHO',
    offset: 18,
    length: 12,
    context: { rate: 0.5 },
  });
});

test('no rules, or no match: the same script', () => {
  const s = plainScript('Nothing to see here.');
  assert.equal(applyLexicon(s, undefined), s);
  assert.equal(applyLexicon(s, []), s);
  assert.deepEqual(applyLexicon(s, rules), s);
});

test('earlier rules win a grapheme two lexicons define', () => {
  const out = applyLexicon(plainScript('WHO'), [{ grapheme: 'who', alias: 'first' }, ...rules]).pieces;
  assert.deepEqual(
    out.map((p) => p.type === 'sub' && p.alias),
    ['first'],
  );
});

test('property: for any text and graphemes, pieces tile the source in order and every sub/phoneme matches its rule', () => {
  const word = fc.string({ minLength: 1, maxLength: 6, unit: fc.constantFrom('a', 'B', 'ç', '1', '.', '+', '-', '(', '$', '\\') });
  fc.assert(
    fc.property(
      fc.array(word, { maxLength: 5 }),
      fc.string({ maxLength: 80, unit: fc.constantFrom('a', 'B', 'ç', '1', ' ', '.', '+', '-', '(', '$', '\\', '\n') }),
      (graphemes, text) => {
        const lex = graphemes.map((g, i) => ({ grapheme: g, alias: `alias${i}` }));
        const out = applyLexicon(plainScript(text), lex).pieces;
        let at = 0;
        for (const p of out) {
          assert.ok(p.type === 'text' || p.type === 'sub');
          assert.equal(p.offset, at);
          assert.equal(p.text, text.slice(p.offset, p.offset + p.length));
          at += p.length;
          if (p.type === 'sub') assert.equal(lex.find((r) => r.alias === p.alias)?.grapheme.toLowerCase(), p.text.toLowerCase());
        }
        assert.equal(at, text.length);
      },
    ),
    { numRuns: 300 },
  );
});

/** The matcher the trie replaced (one regular expression of every grapheme), as the reference for what matches. */
function regexMatches(text: string, lex: readonly LexiconEntry[]): Array<[number, number, string]> {
  const keyOf = (s: string): string => s.normalize('NFC').replace(/\s+/g, ' ').trim().toLowerCase();
  const byKey = new Map<string, LexiconEntry>();
  for (const r of lex) if (keyOf(r.grapheme) !== '' && !byKey.has(keyOf(r.grapheme))) byKey.set(keyOf(r.grapheme), r);
  if (byKey.size === 0) return [];
  const keys = [...byKey.keys()].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  const alternatives = keys.map((k) => k.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&').replace(/ /g, '\\s+'));
  const re = new RegExp(`(?<![\\p{L}\\p{N}\\p{M}_])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}\\p{M}_])`, 'giu');
  const out: Array<[number, number, string]> = [];
  for (const m of text.matchAll(re)) {
    const rule = byKey.get(keyOf(m[0]));
    if (rule?.alias) out.push([m.index, m.index + m[0].length, rule.alias]);
  }
  return out;
}

test('property: the trie matches exactly what the old regular expression did (whole words, longest first, any white space)', () => {
  const unit = fc.constantFrom('a', 'b', 'A', 'é', '1', '_', '.', '+', '-', '(', '$', "'");
  const grapheme = fc.array(fc.string({ minLength: 1, maxLength: 3, unit }), { minLength: 1, maxLength: 3 }).map((ws) => ws.join(' '));
  const text = fc.string({ maxLength: 60, unit: fc.oneof(unit, fc.constantFrom(' ', '  ', '\n', '\t')) });
  fc.assert(
    fc.property(fc.uniqueArray(grapheme, { maxLength: 6, selector: (g) => g.toLowerCase() }), text, (graphemes, t) => {
      const lex = graphemes.map((g, i) => ({ grapheme: g, alias: `alias${i}` }));
      const got = applyLexicon(plainScript(t), lex)
        .pieces.filter((p) => p.type === 'sub')
        .map((p) => [p.offset, p.offset + p.length, p.type === 'sub' ? p.alias : ''] as [number, number, string]);
      assert.deepEqual(got, regexMatches(t, lex));
    }),
    { numRuns: 2000 },
  );
});

test('2 000 rules of 100 characters: matched in a bounded number of steps, the same as a few rules', () => {
  // Rule i: "rule<i> w<i>-0 w<i>-1 …", 100 characters: every rule shares its last words' shape with the others.
  const words = (i: number): string => `rule${i} ${Array.from({ length: 20 }, (_, k) => `w${i}-${k}`).join(' ')}`.slice(0, 100).trim();
  const many: LexiconEntry[] = Array.from({ length: 2000 }, (_, i) => ({ grapheme: words(i), alias: `rule ${i}` }));
  const text = `${words(1234)} and then ${words(42)} again. `.repeat(40);
  const out = applyLexicon(plainScript(text), many).pieces;
  const subs = out.filter((p) => p.type === 'sub').map((p) => (p.type === 'sub' ? p.alias : ''));
  assert.equal(subs.length, 80);
  assert.deepEqual(new Set(subs), new Set(['rule 1234', 'rule 42']));
});
