import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alignCharacters, CharacterAligner, concatAlignments } from '../../src/speech/character-alignment.ts';

const TEXT = 'Hello, world.';
const WORDS = [
  { word: 'Hello', start: 0.1, end: 0.5, offset: 0, length: 5 },
  { word: 'world', start: 0.6, end: 1.0, offset: 7, length: 5 },
];

test("a word's characters share its span; the gap and the tail share what lies between", () => {
  const a = alignCharacters(TEXT, WORDS, 1.2);
  assert.deepEqual(a.characters, [...TEXT]);
  assert.deepEqual(a.character_start_times_seconds, [0.1, 0.18, 0.26, 0.34, 0.42, 0.5, 0.55, 0.6, 0.68, 0.76, 0.84, 0.92, 1.0]);
  assert.deepEqual(a.character_end_times_seconds, [0.18, 0.26, 0.34, 0.42, 0.5, 0.55, 0.6, 0.68, 0.76, 0.84, 0.92, 1.0, 1.2]);
});

test('without usable offsets, words are found by their spelling', () => {
  const unplaced = WORDS.map((w) => ({ ...w, offset: -1, length: 0 }));
  assert.deepEqual(alignCharacters(TEXT, unplaced, 1.2), alignCharacters(TEXT, WORDS, 1.2));
});

test('streamed word by word, the same alignment as all at once', () => {
  const aligner = new CharacterAligner(TEXT);
  const parts = [aligner.words(WORDS.slice(0, 1)), aligner.words([]), aligner.words(WORDS.slice(1)), aligner.finish(1.2)];
  assert.deepEqual(concatAlignments(parts), alignCharacters(TEXT, WORDS, 1.2));
});

test('overlapping or backward word times still give monotonic times; no words: spread over the audio', () => {
  const text = 'one two three';
  const words = [
    { word: 'one', start: 0.2, end: 0.9, offset: 0, length: 3 },
    { word: 'two', start: 0.5, end: 0.7, offset: 4, length: 3 },
    { word: 'three', start: 1.0, end: 1.4, offset: 8, length: 5 },
  ];
  const a = alignCharacters(text, words, 1.5);
  assert.equal(a.characters.length, text.length);
  for (let i = 0; i < a.characters.length; i++) {
    assert.ok(a.character_end_times_seconds[i] >= a.character_start_times_seconds[i]);
    if (i > 0) assert.ok(a.character_start_times_seconds[i] >= a.character_end_times_seconds[i - 1] - 1e-9);
  }
  const none = alignCharacters('abcd', [], 2);
  assert.deepEqual(none.character_start_times_seconds, [0, 0.5, 1, 1.5]);
  assert.deepEqual(none.character_end_times_seconds, [0.5, 1, 1.5, 2]);
});

test('a surrogate pair is one character; a word missing from the text only passes time', () => {
  const a = alignCharacters(
    'hi 👋 there',
    [
      { word: 'hi', start: 0, end: 0.2, offset: 0, length: 2 },
      { word: 'wave', start: 0.3, end: 0.5, offset: -1, length: 0 },
    ],
    1,
  );
  assert.deepEqual(a.characters, ['h', 'i', ' ', '👋', ' ', 't', 'h', 'e', 'r', 'e']);
  assert.ok(a.character_start_times_seconds[2] >= 0.5, 'the tail starts after the unplaced word');
});
