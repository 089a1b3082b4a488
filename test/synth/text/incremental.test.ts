// The incremental splitter: a sentence that plainly ends goes out with its last piece; one whose end a
// following character could still undo ("Dr. Smith", "3.5", "J. R. R.") waits, as it always did.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { endsPlainly, SentenceStream } from '../../../src/synth/text/incremental.ts';

/** The sentences handed out by each push of `pieces`, in order. */
function pushAll(pieces: string[]): { stream: SentenceStream; out: string[][] } {
  const stream = new SentenceStream();
  return { stream, out: pieces.map((p) => stream.push(p).map((s) => s.text)) };
}

describe('endsPlainly', () => {
  const cases: Array<[string, boolean, string]> = [
    // Plain ends.
    ['Hello there.', true, 'a word and a period'],
    ['Is it done?', true, 'a question'],
    ['Stop!', true, 'an exclamation'],
    ['Really?!', true, 'mixed ! and ?'],
    ['He said "go home."', true, 'a closing quote after the period'],
    ['He said “go home.”', true, 'a curly closing quote'],
    ['(It was late.)', true, 'a closing bracket'],
    ['He left "soon".', true, 'a period after a closing quote'],
    ['Ask "why?"', true, 'a question in quotes'],
    ['Hello there. ', true, 'a space after it changes nothing'],
    ['I have 3 cats.', true, 'a number before the last word is not a unit'],
    ['It was the 1990s.', true, 'a word that starts with digits'],
    // Abbreviations read with their period (en-abbreviations.ts and the splitter's own list).
    ['I met Dr.', false, 'a title'],
    ['It weighs approx.', false, 'approx.'],
    ['See Fig.', false, 'a word before a number'],
    ['Apples, pears, etc.', false, 'etc.'],
    ['Acme Inc.', false, 'a company suffix'],
    ['Lakers vs.', false, 'vs.'],
    ['It opens in Jan.', false, 'a short month'],
    ['Pick one, e.g.', false, 'e.g.'],
    ['He lives in the U.S.', false, 'an initialism'],
    ['Visit example.com.', false, 'a period inside the word'],
    ['Meet me at 5 p.m.', false, 'p.m.'],
    ['Mr.', false, 'a title alone'],
    // Numbers: "3." may become "3.5".
    ['The answer is 3.', false, 'a number'],
    ['Version 2.', false, 'a version number'],
    ['It costs $5.', false, 'money'],
    ['He is 5 ft.', false, 'a unit after a number ("5 ft. tall")'],
    ['The board is 12 in.', false, 'inches after a number ("12 in. wide")'],
    ['Come in.', true, '"in" after a word'],
    ['Upgrade to v2.', false, 'a word ending in a digit'],
    // Initials and single letters.
    ['Written by J.', false, 'an initial'],
    ['Option a.', false, 'a single lower-case letter'],
    // No terminal, or one that goes on.
    ['Hello there', false, 'no terminal'],
    ['Well, then,', false, 'a comma'],
    ['Wait...', false, 'an ellipsis'],
    ['Wait…', false, 'the ellipsis character'],
    ['', false, 'nothing'],
    ['.', false, 'a period alone'],
  ];
  for (const [text, expected, what] of cases) {
    test(`${what}: ${JSON.stringify(text)} → ${expected ? 'ends' : 'waits'}`, () => {
      assert.equal(endsPlainly(text), expected);
    });
  }
});

describe('SentenceStream', () => {
  test('a plain end goes out with the piece that completes it; the next sentence starts a new one', () => {
    const { out } = pushAll(['Hello', ' there', '.', ' How', ' are', ' you', '?', ' Fine']);
    assert.deepEqual(out, [[], [], ['Hello there.'], [], [], [], ['How are you?'], []]);
  });

  test('an ambiguous end waits for what follows, then is cut as whole text is', () => {
    const { stream, out } = pushAll(['I', ' met', ' Dr.', ' Smith', ' today.']);
    assert.deepEqual(out, [[], [], [], [], ['I met Dr. Smith today.']]);
    assert.deepEqual(stream.flush(), []);
    const numbers = pushAll(['It', ' is', ' 3.', '5', ' meters', ' long', '.']);
    assert.deepEqual(numbers.out, [[], [], [], [], [], [], ['It is 3.5 meters long.']]);
    const initials = pushAll(['By', ' J.', ' R.', ' R.', ' Tolkien', '!']);
    assert.deepEqual(initials.out, [[], [], [], [], [], ['By J. R. R. Tolkien!']]);
    // "etc." may end a sentence: the next word settles it.
    const list = pushAll(['Apples,', ' pears,', ' etc.', ' Then', ' more']);
    assert.deepEqual(list.out, [[], [], [], ['Apples, pears, etc.'], []]);
  });

  test('a closing quote in the same piece as the period ends it; one in the next piece starts the next text', () => {
    const { stream, out } = pushAll(['He', ' said', ' "go', ' home."', ' Then']);
    assert.deepEqual(out, [[], [], [], ['He said "go home."'], []]);
    assert.deepEqual(
      stream.flush().map((s) => s.text),
      ['Then'],
    );
  });

  test('offsets point into the text received; pauses follow the sentence ends, a blank line after an early end is a paragraph', () => {
    const stream = new SentenceStream();
    const text = ['First one.', '\n\n', 'Second one!', ' Third', ' one', ', at', ' last'];
    const got = text.flatMap((p) => stream.push(p));
    const rest = stream.flush();
    const all = [...got, ...rest];
    const whole = text.join('');
    assert.deepEqual(
      all.map((s) => whole.slice(s.offset, s.end)),
      ['First one.', 'Second one!', 'Third one, at last'],
    );
    assert.deepEqual(
      all.map((s) => s.pauseBefore),
      [undefined, 'paragraph', 'sentence'],
    );
    // After a flush the next piece starts a new utterance: offset 0, no pause before it.
    const next = stream.push('Again.');
    assert.deepEqual(
      next.map((s) => [s.text, s.offset, s.pauseBefore]),
      [['Again.', 0, undefined]],
    );
  });

  test('the first sentence handed out early is cut as a whole text would be: whole up to the length cap', () => {
    const long = `${'word '.repeat(20).trim()}.`;
    const stream = new SentenceStream();
    const out = stream.push(long);
    assert.equal(out.length, 1, `${out.length} pieces`);
    assert.equal(out.map((s) => s.text).join(' '), long);
  });
});
