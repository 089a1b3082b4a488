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
  assert.deepEqual(out[2], { type: 'sub', alias: 'World Health Organization', text: 'WHO', offset: 18, length: 12, context: { rate: 0.5 } });
});

test('no rules, or no match: the same script', () => {
  const s = plainScript('Nothing to see here.');
  assert.equal(applyLexicon(s, undefined), s);
  assert.equal(applyLexicon(s, []), s);
  assert.deepEqual(applyLexicon(s, rules), s);
});

test('earlier rules win a grapheme two lexicons define', () => {
  const out = applyLexicon(plainScript('WHO'), [{ grapheme: 'who', alias: 'first' }, ...rules]).pieces;
  assert.deepEqual(out.map((p) => p.type === 'sub' && p.alias), ['first']);
});

test('property: for any text and graphemes, pieces tile the source in order and every sub/phoneme matches its rule', () => {
  const word = fc.string({ minLength: 1, maxLength: 6, unit: fc.constantFrom('a', 'B', 'ç', '1', '.', '+', '-', '(', '$', '\\') });
  fc.assert(
    fc.property(fc.array(word, { maxLength: 5 }), fc.string({ maxLength: 80, unit: fc.constantFrom('a', 'B', 'ç', '1', ' ', '.', '+', '-', '(', '$', '\\', '\n') }), (graphemes, text) => {
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
    }),
    { numRuns: 300 },
  );
});
