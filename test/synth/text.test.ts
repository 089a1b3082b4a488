import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeEnglish, prepareText, splitSentences } from '../../src/synth/text/index.ts';
import { cardinal, ordinal, year } from '../../src/synth/text/number-words.ts';

describe('number words', () => {
  test('cardinals, ordinals and years', () => {
    assert.equal(cardinal(0), 'zero');
    assert.equal(cardinal(15), 'fifteen');
    assert.equal(cardinal(1234567), 'one million two hundred thirty-four thousand five hundred sixty-seven');
    assert.equal(cardinal(-40), 'minus forty');
    assert.equal(ordinal(1), 'first');
    assert.equal(ordinal(12), 'twelfth');
    assert.equal(ordinal(21), 'twenty-first');
    assert.equal(ordinal(40), 'fortieth');
    assert.equal(ordinal(103), 'one hundred third');
    assert.equal(year(2026), 'twenty twenty-six');
    assert.equal(year(1999), 'nineteen ninety-nine');
    assert.equal(year(1905), 'nineteen oh five');
    assert.equal(year(1900), 'nineteen hundred');
    assert.equal(year(2000), 'two thousand');
    assert.equal(year(2008), 'two thousand eight');
  });
});

describe('English normalization', () => {
  const cases: [string, string][] = [
    ['It costs $5.20.', 'It costs five dollars and twenty cents.'],
    ['$1 and $0.50', 'one dollar and fifty cents'],
    ['$1,234.56', 'one thousand two hundred thirty-four dollars and fifty-six cents'],
    ['$2.5 million', 'two point five million dollars'],
    ['£3.01', 'three pounds and one penny'],
    ['€10', 'ten euros'],
    ['the 3rd and 21st and 100th', 'the third and twenty-first and one hundredth'],
    ['2026-11-21', 'November twenty-first, twenty twenty-six'],
    ['on 11/21/2026', 'on November twenty-first, twenty twenty-six'],
    ['Nov. 3rd', 'November third'],
    ['March 5, 1999', 'March fifth, nineteen ninety-nine'],
    ['Dr. Smith', 'Doctor Smith'],
    ['Mr. and Mrs. Jones', 'Mister and Missus Jones'],
    ['St. Paul', 'Saint Paul'],
    ['221 Baker St. It was late.', 'two twenty-one Baker Street. It was late.'],
    ['Mount St. Helens', 'Mount Saint Helens'],
    ['We met Dr. Who at 12 Oak Dr. The end.', 'We met Doctor Who at twelve Oak Drive. The end.'],
    ['I live on Elm St.', 'I live on Elm Street.'],
    ['fruit, e.g. apples, i.e. red', 'fruit, for example apples, that is red'],
    ['pears, etc. Then', 'pears, et cetera. Then'],
    ['at 3:30 pm', 'at three thirty P M'],
    ['at 9:05', 'at nine oh five'],
    ['at 12:00', "at twelve o'clock"],
    ['at 15:45', 'at fifteen forty-five'],
    ['50% and 3.5%', 'fifty percent and three point five percent'],
    ['in 1999', 'in nineteen ninety-nine'],
    ['1500 people', 'one thousand five hundred people'],
    ['pi is 3.14', 'pi is three point one four'],
    ['-5 degrees', 'minus five degrees'],
    ['the 1990s', 'the nineteen nineties'],
    ['pages 10-12', 'pages ten to twelve'],
    ['call 555-123-4567', 'call five five five, one two three, four five six seven'],
    ['agent 007', 'agent zero zero seven'],
    ['5 kg at 60 mph', 'five kilograms at sixty miles per hour'],
    ['1,000,000 stars', 'one million stars'],
    ['the U.S. is big', 'the U S is big'],
    ['rock & roll', 'rock and roll'],
    ['No. 5', 'number five'],
  ];
  for (const [input, expected] of cases) {
    test(JSON.stringify(input), () => assert.equal(normalizeEnglish(input), expected));
  }

  test('text without numbers or abbreviations is unchanged', () => {
    const s = 'Nothing to change here, really! Is there?';
    assert.equal(normalizeEnglish(s), s);
  });
});

describe('sentence splitting', () => {
  const texts = (t: string) => splitSentences(t).map((s) => s.text);

  test('splits at terminal punctuation, not at titles, initials or decimals', () => {
    assert.deepEqual(texts('Dr. Smith arrived at 3.5 past. He left! Did he? Yes.'), [
      'Dr. Smith arrived at 3.5 past.',
      'He left!',
      'Did he?',
      'Yes.',
    ]);
    assert.deepEqual(texts('J. R. R. Tolkien wrote it. "Wow!" she said.'), ['J. R. R. Tolkien wrote it.', '"Wow!" she said.']);
    assert.deepEqual(texts('Herr Dr. Müller kam z.B. spät. Gut.'), ['Herr Dr. Müller kam z.B. spät.', 'Gut.']);
  });

  test('splits CJK punctuation without spaces', () => {
    assert.deepEqual(texts('你好，世界。今天天气很好！你呢？'), ['你好，世界。', '今天天气很好！', '你呢？']);
  });

  test('paragraphs and headings', () => {
    const s = splitSentences('Title\nThe body starts here and\ncontinues here. Second.\n\nNew paragraph.');
    assert.deepEqual(
      s.map((x) => x.text),
      ['Title', 'The body starts here and continues here.', 'Second.', 'New paragraph.'],
    );
    assert.deepEqual(
      s.map((x) => x.break),
      ['sentence', 'sentence', 'paragraph', 'sentence'],
    );
  });

  test('long sentences are capped, cut at commas first', () => {
    const long =
      'This is a very long sentence that goes on and on, with many clauses and words, and keeps adding words to itself; ' +
      'it never seems to stop, and the listener waits, and waits, and waits for the first audio to arrive, which is bad ' +
      'for latency and for the experience of streaming speech in general, as everybody knows.';
    const pieces = splitSentences(long, { maxChars: 120 });
    assert.ok(pieces.every((p) => p.text.length <= 120));
    assert.equal(pieces[0].break, 'clause');
    assert.match(pieces[0].text, /[,;]$/);
    assert.equal(pieces.map((p) => p.text).join(' '), long);
  });

  test('text without spaces is cut hard', () => {
    const pieces = splitSentences('あ'.repeat(500), { maxChars: 100 });
    assert.equal(pieces.map((p) => p.text).join(''), 'あ'.repeat(500));
    assert.ok(pieces.every((p) => p.text.length <= 100));
  });

  test('prepareText normalizes English only and drops empty pieces', () => {
    assert.deepEqual(
      prepareText('Dr. Who paid $5.\n\n...\n\nBye.', { english: true }).map((s) => s.text),
      ['Doctor Who paid five dollars.', 'Bye.'],
    );
    assert.deepEqual(
      prepareText('Dr. Who paid $5.', { english: false }).map((s) => s.text),
      ['Dr. Who paid $5.'],
    );
    assert.deepEqual(prepareText('   ', { english: true }), []);
  });
});
