import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeEnglish, prepareText } from '../../../src/synth/text/index.ts';
import { CORPUS } from './normalize-en.corpus.ts';

describe('English normalization corpus', () => {
  test('has at least 500 pairs, with every fault found by the earlier listening test', () => {
    assert.ok(CORPUS.length >= 500, `${CORPUS.length} pairs`);
    assert.ok(CORPUS.filter((p) => p.issue).length >= 18);
    assert.equal(new Set(CORPUS.map((p) => p.written)).size, CORPUS.length, 'each written form once');
  });

  for (const { written, spoken } of CORPUS) {
    test(JSON.stringify(written), () => assert.equal(normalizeEnglish(written), spoken));
  }

  test('abbreviated weekdays and months do not end the sentence', () => {
    const pieces = prepareText('Mon. Jan. 5 is the day. We met Dr. Who on Tues., Nov. 3 at 9 a.m. and left.', { english: true });
    assert.deepEqual(
      pieces.map((p) => p.text),
      ['Monday January fifth is the day.', 'We met Doctor Who on Tuesday, November third at nine A M and left.'],
    );
  });

  test('the spoken form is a fixed point: normalizing it again changes nothing', () => {
    for (const { spoken } of CORPUS) assert.equal(normalizeEnglish(spoken), spoken, spoken);
  });
});

describe('splitting text that is not normalized (other languages)', () => {
  test('a short weekday or month does not end the sentence', () => {
    assert.deepEqual(
      prepareText('Mon. Jan. 5 ist der Tag. Gut.', { english: false }).map((p) => p.text),
      ['Mon. Jan. 5 ist der Tag.', 'Gut.'],
    );
  });
});
