// Every spoken word gets exactly one timing, in order, on every engine. espeak joins an unstressed function word
// to the word before it ("on the", "of a") and reports no word event for it, though the audio has it: those words
// went without a timing. Sentences thick with function words, through /v1/speak/with-timestamps.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useService } from '../helpers/fixture.ts';
import { timedSpeech } from '../helpers/timed-speech.ts';

const s = useService({ user: 'word-coverage@example.com' });

// Plain words only (nothing normalization rewrites), so the text's words are the spoken words.
const ENGLISH = [
  'The cat sat on the mat in the middle of a room, and a dog ate the end of the bread.',
  'It was one of the best of the things to do at the end of a day by the sea.',
  'Give it to him and to her, for the sake of all of us who are in the house.',
  'A man with a hat went up to the top of the hill and looked at the town below.',
  'She put the cup on a shelf near the door of the kitchen, as if it were a gift from the king.',
];
const GERMAN = ['Der Hund und die Katze sitzen in dem Haus an der Ecke von der Straße, und ein Mann mit einem Hut geht vorbei.'];

const VOICES: [string, string[]][] = [
  ['espeak-en-us-female-1', ENGLISH],
  ['espeak-en-us-male-1', ENGLISH],
  ['espeak-en-gb-male-1', ENGLISH],
  ['espeak-de-male-1', GERMAN],
  ['flite-slt', ENGLISH],
  ['flite-kal16', ENGLISH],
  ['flite-awb', ENGLISH],
  ['flite-rms', ENGLISH],
];

describe('one word timing per spoken word', () => {
  for (const [voice, sentences] of VOICES) {
    test(voice, async (t) => {
      let words = 0;
      let timed = 0;
      const wrong: string[] = [];
      for (const text of sentences) {
        const out = await timedSpeech(s, s.key, { text, voice_id: voice });
        const expected = [...text.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => ({ word: m[0], offset: m.index }));
        const offsets = new Set(out.words.map((w) => w.offset));
        words += expected.length;
        timed += expected.filter((w) => offsets.has(w.offset)).length;
        const got = out.words.map((w) => w.word).join(' ');
        if (got !== expected.map((w) => w.word).join(' ')) wrong.push(`"${text}": ${got}`);
        for (let i = 0; i < out.words.length; i++) {
          const w = out.words[i];
          assert.equal(text.slice(w.offset, w.offset + w.length), w.word);
          assert.ok(w.end >= w.start, JSON.stringify(w));
          // Apart: a joined word starts inside its group, after the stressed word it was joined to.
          if (i > 0) assert.ok(w.start > out.words[i - 1].start, JSON.stringify(out.words.slice(i - 1, i + 1)));
        }
      }
      t.diagnostic(`${voice}: ${timed}/${words} words timed`);
      assert.deepEqual(wrong, []);
    });
  }
});
