// A worker thread interleaves its requests piece by piece (piece-turns.ts): a request that arrives while a
// long reading renders must wait for the piece under way and no more, and that piece is a clause, not a
// whole long sentence. Driven in-process the way worker.ts drives the pipeline: one PieceTurns for both
// requests, a turn before each piece, and a return to the event loop after each block sent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PieceTurns } from '../../src/synth/piece-turns.ts';
import { renderSpeech } from '../../src/synth/pipeline.ts';

const CLAUSES = [
  'The keeper showed him the stairs, the lamp, the brass fittings he had polished for decades, and the small window where the kettle always stood.',
  'In winter the wind came straight from the north, carrying salt and ice, and the keeper wrapped himself in two coats and a scarf his sister had knitted.',
  'He kept a logbook of every ship that passed, written in a careful hand, with the weather, the hour, and a short note about anything unusual he had seen.',
  'Some nights there was nothing to write but the names of the stars, and he wrote those too, because the habit of writing kept his mind awake.',
];
const LONG_READING = Array.from({ length: 3 }, () => CLAUSES.join(' ')).join(' ');
const voice = { engine: 'flite', base: 'slt' } as const;

type Event = { who: 'long' | 'new'; kind: 'arrives' | 'turn' | 'audio'; seconds: number };

test('a request arriving during a long reading waits for one clause piece at most', async () => {
  const turns = new PieceTurns();
  const events: Event[] = [];
  let longStarted!: () => void;
  const started = new Promise<void>((resolve) => (longStarted = resolve));

  const speak = (who: Event['who'], text: string) => {
    let sent = 0;
    events.push({ who, kind: 'arrives', seconds: 0 });
    return renderSpeech(
      { text, voice, speed: 1, format: 'pcm' },
      {
        turn: async () => {
          await turns.take({ started: sent > 0, ahead: 0 });
          events.push({ who, kind: 'turn', seconds: 0 });
        },
        emit: async (_bytes, seconds) => {
          sent += seconds;
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

  // Each piece of the long reading, as seconds of audio: a clause, never one of its ~10 s sentences.
  const pieces: number[] = [];
  for (const e of events.filter((x) => x.who === 'long')) {
    if (e.kind === 'turn') pieces.push(0);
    else if (e.kind === 'audio' && pieces.length > 0) pieces[pieces.length - 1] += e.seconds;
  }
  const longest = Math.max(...pieces);
  assert.ok(longest < 5, `the longest piece of the long reading is ${longest.toFixed(2)} s of audio`);
});
