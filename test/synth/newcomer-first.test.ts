// A worker thread interleaves its requests piece by piece (piece-turns.ts): a request that arrives while a
// long reading renders must wait for the piece under way and no more. A long reading's sentences are cut into
// clause pieces only while someone waiting on the thread is short of audio (or short requests keep coming), and
// otherwise render whole; a shorter request's later sentences only while someone is short of audio. Driven
// in-process the way worker.ts drives the pipeline: one PieceTurns for both requests, a turn before each
// piece, and a return to the event loop after each block sent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PieceTurns, type Turn } from '../../src/synth/piece-turns.ts';
import { renderSpeech } from '../../src/synth/pipeline.ts';
import { cutAtClauses } from '../../src/synth/text/clause-pieces.ts';
import { verbatim } from '../../src/synth/text/mapped.ts';

const CLAUSES = [
  'The keeper showed him the stairs, the lamp, the brass fittings he had polished for decades, and the small window where the kettle always stood.',
  'In winter the wind came straight from the north, carrying salt and ice, and the keeper wrapped himself in two coats and a scarf his sister had knitted.',
  'He kept a logbook of every ship that passed, written in a careful hand, with the weather, the hour, and a short note about anything unusual he had seen.',
  'Some nights there was nothing to write but the names of the stars, and he wrote those too, because the habit of writing kept his mind awake.',
];
const LONG_READING = Array.from({ length: 3 }, () => CLAUSES.join(' ')).join(' ');
const voice = { engine: 'flite', base: 'slt' } as const;

type Event = { who: 'long' | 'new'; kind: 'arrives' | 'turn' | 'audio'; seconds: number };

test('a request arriving during a long reading waits for one piece of it at most', async () => {
  const turns = new PieceTurns();
  const events: Event[] = [];
  let longStarted!: () => void;
  const started = new Promise<void>((resolve) => (longStarted = resolve));

  const speak = (who: Event['who'], text: string) => {
    let sent = 0;
    let firstAudioAt: number | undefined;
    events.push({ who, kind: 'arrives', seconds: 0 });
    return renderSpeech(
      { text, voice, speed: 1, format: 'pcm' },
      {
        turn: async () => {
          const turn = await turns.take({ firstAudioAt, sentSeconds: sent });
          events.push({ who, kind: 'turn', seconds: 0 });
          return turn;
        },
        emit: async (_bytes, seconds) => {
          sent += seconds;
          if (seconds > 0) firstAudioAt ??= performance.now();
          events.push({ who, kind: 'audio', seconds });
          if (who === 'long' && sent > 4) longStarted();
          await new Promise<void>((resolve) => setImmediate(resolve));
        },
      },
    );
  };

  const long = speak('long', LONG_READING);
  await started;
  const newcomer = await speak('new', 'Please call the front desk when the visitor arrives at the gate.');
  await long;
  assert.ok(newcomer.seconds > 0);

  const arrived = events.findIndex((e) => e.who === 'new' && e.kind === 'arrives');
  const firstTurn = events.findIndex((e) => e.who === 'new' && e.kind === 'turn');
  const between = events.slice(arrived, firstTurn).filter((e) => e.who === 'long' && e.kind === 'turn');
  assert.ok(between.length <= 1, `the newcomer waited for ${between.length} pieces of the long reading`);
});

/** Seconds of audio of each piece the request rendered, when every turn tells it `turn`. */
async function pieces(text: string, turn: Turn): Promise<number[]> {
  const out: number[] = [];
  await renderSpeech(
    { text, voice, speed: 1, format: 'pcm' },
    {
      turn: async () => {
        out.push(0);
        return turn;
      },
      emit: async (_bytes, seconds) => {
        if (out.length > 0) out[out.length - 1] += seconds;
      },
    },
  );
  return out;
}

test("a long reading's sentences render whole while nobody waits, in clauses while a listener runs short or short requests come", async () => {
  const alone = await pieces(LONG_READING, { othersSlack: Infinity, sinceShortArrival: Infinity });
  const pressed = await pieces(LONG_READING, { othersSlack: 0.5, sinceShortArrival: Infinity });
  const relaxed = await pieces(LONG_READING, { othersSlack: 30, sinceShortArrival: 60 });
  const visited = await pieces(LONG_READING, { othersSlack: Infinity, sinceShortArrival: 2 });
  // Each sentence whole but the first, which is cut for a quick start.
  const sentences = LONG_READING.split(/(?<=\.)\s+/).length;
  assert.ok(alone.length <= sentences + 2, `${alone.length} pieces alone for ${sentences} sentences`);
  assert.ok(Math.max(...alone) > 8, `the longest piece alone is ${Math.max(...alone).toFixed(2)} s of audio`);
  assert.equal(
    relaxed.length,
    alone.length,
    'a listener with plenty of audio left (and no short request for a minute) does not make it cut',
  );
  assert.equal(visited.length, pressed.length, 'short requests arriving of late make it cut as well');
  assert.ok(pressed.length > 2 * alone.length, `${pressed.length} pieces with a listener running short`);
  assert.ok(Math.max(...pressed) < 5, `the longest clause piece is ${Math.max(...pressed).toFixed(2)} s of audio`);
  // The same speech either way, give or take the pauses at the cuts.
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(sum(pressed) - sum(alone)) < 0.1 * sum(alone), `${sum(pressed).toFixed(1)} s against ${sum(alone).toFixed(1)} s`);
});

test("a shorter request's later sentences are cut into clauses while a listener runs short; its first sentence stays whole", async () => {
  // Three sentences, under the long-reading length: a stream's text, its first sentence short.
  const text = `Stream one of many. ${CLAUSES[1]} ${CLAUSES[2]}`;
  const cuts = (sentence: string) => cutAtClauses({ text: sentence, break: 'sentence', mapped: verbatim(sentence) }).length;
  assert.ok(cuts(CLAUSES[1]) > 1 && cuts(CLAUSES[2]) > 1);
  const alone = await pieces(text, { othersSlack: Infinity, sinceShortArrival: Infinity });
  const relaxed = await pieces(text, { othersSlack: 30, sinceShortArrival: 0.1 });
  const pressed = await pieces(text, { othersSlack: 0.2, sinceShortArrival: Infinity });
  assert.equal(alone.length, 3, 'each sentence whole with nobody else on the thread');
  assert.equal(relaxed.length, 3, 'short requests arriving do not make it cut: only long readings cut for them');
  assert.equal(pressed.length, 1 + cuts(CLAUSES[1]) + cuts(CLAUSES[2]), 'its later sentences in clauses while a listener runs short');
  assert.ok(Math.abs(pressed[0] - alone[0]) < 0.05, `the first sentence whole: ${pressed[0]} s against ${alone[0]} s`);
  // A one-sentence request has no later sentence: it stays whole however pressed the thread is.
  assert.equal((await pieces(CLAUSES[1], { othersSlack: 0, sinceShortArrival: 0 })).length, 1);
});
