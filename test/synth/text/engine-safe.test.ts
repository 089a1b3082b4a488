// After English normalization nothing is left that an engine would read its own way: no digits, no symbols an
// engine speaks (espeak-ng says "tilde", "slash", "asterisk"; flite "underscore", "caret", "bar"), no Roman
// numeral that espeak-ng would announce as "Roman eight", and the minus sign is a word every engine says.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeEnglish } from '../../../src/synth/text/index.ts';
import { CORPUS } from './normalize-en.corpus.ts';
import { espeakReading, fliteReading } from './engine-reading.ts';

// Letters, spaces and the punctuation engines only pause at.
const SAFE = /^[\p{L}\p{M}\s.,;:!?'’"“”()[\]\-–—…]*$/u;

// "Roman" as espeak-ng says it before a numeral it read by itself.
const ROMAN = 'ɹoʊmən';

function toRoman(n: number): string {
  const table: [number, string][] = [
    [1000, 'M'],
    [900, 'CM'],
    [500, 'D'],
    [400, 'CD'],
    [100, 'C'],
    [90, 'XC'],
    [50, 'L'],
    [40, 'XL'],
    [10, 'X'],
    [9, 'IX'],
    [5, 'V'],
    [4, 'IV'],
    [1, 'I'],
  ];
  let out = '';
  for (const [v, r] of table) for (; n >= v; n -= v) out += r;
  return out;
}

describe('nothing is left for an engine to read its own way', () => {
  test('every normalized corpus sentence is words and pausing punctuation', () => {
    for (const { written } of CORPUS) {
      const out = normalizeEnglish(written);
      assert.match(out, SAFE, `${written} -> ${out}`);
    }
  });

  test('every ASCII and common symbol, alone, between words or by a number, is spoken as a word or dropped', () => {
    const symbols = [...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~', ...'§¶©®™°±×÷≈≠≤≥→←•·…†‡‰′″€£¥¢₹½¼¾²³µΩ№♥★✓–—−√∞π'];
    const left: string[] = [];
    for (const c of symbols) {
      for (const text of [`left ${c} right`, `left${c}right`, `1${c}2`, `${c}5`, `5${c}`, `a ${c}`, c]) {
        const out = normalizeEnglish(text);
        if (!SAFE.test(out)) left.push(`${JSON.stringify(text)} -> ${JSON.stringify(out)}`);
      }
    }
    assert.deepEqual(left, []);
  });

  test('espeak-ng never announces a Roman numeral: every numeral up to 100, bare, after a name and after a title', async () => {
    for (let n = 1; n <= 100; n++) {
      const r = toRoman(n);
      for (const text of [
        `See ${r} now.`,
        `the ${r.toLowerCase()} item`,
        `Henry ${r} ruled.`,
        `Chapter ${r} ends.`,
        `Rocky ${r} is out.`,
        `(${r.toLowerCase()})`,
      ]) {
        const said = await espeakReading(normalizeEnglish(text));
        assert.ok(!said.includes(ROMAN), `${text} -> ${normalizeEnglish(text)} -> ${said}`);
      }
    }
  });

  test('the minus sign is said by flite and espeak-ng alike', async () => {
    for (const text of ['It was −12 °C.', 'a low of −3', 'It fell to –8.', 'x = -3', '5 − 3 = 2', '-$40 owed']) {
      const out = normalizeEnglish(text);
      assert.match(out, /\bminus\b/, `${text} -> ${out}`);
      assert.match(fliteReading(out), /\bm ay n ax s\b/, `flite: ${out}`);
      assert.match(await espeakReading(out), /maɪnəs/, `espeak: ${out}`);
    }
  });
});
