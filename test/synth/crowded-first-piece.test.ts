// Many requests arriving on one worker thread at once each wait for every first piece rendered before theirs
// (piece-turns.ts serves requests without audio first). A first piece rendered while others wait for theirs
// is cut down to its first word (first-piece.ts shortestHead): the last of 32 streams on a thread gets its
// first audio ~8 ms of flite sooner per request ahead of it. Driven in-process the way worker.ts drives the
// pipeline: one PieceTurns for all, a turn before each piece, a return to the event loop after each block.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PieceTurns } from '../../src/synth/piece-turns.ts';
import { renderSpeech } from '../../src/synth/pipeline.ts';
import type { WordTiming } from '../../src/synth/speech.ts';
import { shortestHead } from '../../src/synth/text/first-piece.ts';
import { verbatim } from '../../src/synth/text/mapped.ts';

const voice = { engine: 'flite', base: 'slt' } as const;

const heads = (text: string) => shortestHead({ text, mapped: verbatim(text, 10), break: 'sentence' });

test('the shortest head is the first word, after the words a phrase starts with, or up to a clause end', () => {
  assert.deepEqual(
    heads('Stream twenty-three.').map((p) => [p.text, p.break]),
    [
      ['Stream', 'none'],
      ['twenty-three.', 'sentence'],
    ],
  );
  assert.deepEqual(
    heads('The old lighthouse keeper').map((p) => [p.text, p.break]),
    [
      ['The old', 'none'],
      ['lighthouse keeper', 'sentence'],
    ],
  );
  assert.deepEqual(
    heads('So, in the end we went.').map((p) => [p.text, p.break]),
    [
      ['So,', 'clause'],
      ['in the end we went.', 'sentence'],
    ],
  );
  assert.deepEqual(
    heads('Hello.').map((p) => p.text),
    ['Hello.'],
  );
  assert.deepEqual(
    heads('In the').map((p) => p.text),
    ['In the'],
  );
  // The pieces keep pointing at the request's text (word timings are placed by these spans).
  const [head, tail] = heads('Stream twenty-three.');
  assert.deepEqual([head.mapped.starts[0], tail.mapped.starts[0]], [10, 17]);
});

interface Heard {
  turns: number;
  /** Seconds of audio sent before the request's second turn: its first piece. */
  firstPiece: number;
  seconds: number;
  words: WordTiming[];
}

/** Speaks every text at once through one PieceTurns, as requests posted to one worker thread together. */
async function speakTogether(texts: readonly string[]): Promise<Heard[]> {
  const turns = new PieceTurns();
  return Promise.all(
    texts.map(async (text) => {
      const heard: Heard = { turns: 0, firstPiece: 0, seconds: 0, words: [] };
      let sent = 0;
      await renderSpeech(
        { text, voice, speed: 1, format: 'pcm' },
        {
          turn: async () => {
            const turn = await turns.take({ started: sent > 0, ahead: 0 });
            if (++heard.turns === 2) heard.firstPiece = sent;
            return turn;
          },
          emit: async (_bytes, seconds, words) => {
            sent += seconds;
            heard.seconds += seconds;
            heard.words.push(...(words ?? []));
            await new Promise<void>((resolve) => setImmediate(resolve));
          },
        },
      );
      return heard;
    }),
  );
}

test('a first piece rendered while others wait for theirs is one word, and its words are timed as when alone', async () => {
  const text = (n: number) => `Stream ${n}. The keeper climbed the stairs to light the lamp.`;
  const [alone] = await speakTogether([text(23)]);
  const crowd = await speakTogether([1, 2, 3, 23].map(text));
  // The first request's turn comes with three others waiting, the last one's with none.
  const first = crowd[0];
  const last = crowd[3];
  assert.equal(last.turns, alone.turns, 'the last of the crowd, alone on the thread by then, keeps the usual first piece');
  assert.equal(first.turns, alone.turns + 1, 'the first of the crowd renders its first word as a piece of its own');
  assert.ok(
    first.firstPiece < 0.8 * alone.firstPiece,
    `first piece ${first.firstPiece.toFixed(2)} s of audio, alone ${alone.firstPiece.toFixed(2)} s`,
  );

  // The same words, in order, each timed where it is in the audio: the cut adds a short pause (flite ends a
  // one-word utterance a little longer), never a sentence's.
  // The second request's turn comes with two still waiting: compared with the same request alone.
  const same = crowd[1];
  const [sameAlone] = await speakTogether([text(2)]);
  assert.equal(same.turns, sameAlone.turns + 1);
  assert.deepEqual(
    same.words.map((w) => [w.word, w.offset]),
    sameAlone.words.map((w) => [w.word, w.offset]),
  );
  for (let i = 1; i < same.words.length; i++) {
    assert.ok(same.words[i].start >= same.words[i - 1].end - 1e-6, `"${same.words[i].word}" overlaps the word before it`);
  }
  const cut = same.words[1].start - same.words[0].end;
  assert.ok(cut < 0.15, `${cut.toFixed(3)} s between the first word and the next`);
  const longer = same.seconds - sameAlone.seconds;
  assert.ok(longer >= 0 && longer < 0.4, `${longer.toFixed(2)} s more audio than alone`);
});
