// A long reading's long sentences are rendered in clause-sized pieces while others on its worker thread need a
// turn soon, so such a request waits behind a clause rather than a whole sentence; alone, and in short requests,
// sentences stay whole. The pieces
// must join into the same words, each timed in order on audio that is there.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LONG_READING_CHARS } from '../../src/synth/long-reading.ts';
import { renderSpeech } from '../../src/synth/pipeline.ts';
import type { SpeechRequest, WordTiming } from '../../src/synth/speech.ts';
import type { Turn } from '../../src/synth/piece-turns.ts';
import { cutAtClauses } from '../../src/synth/text/clause-pieces.ts';
import { verbatim } from '../../src/synth/text/mapped.ts';
import { concatBytes, decodePcm16, rms, speechSeconds } from './helpers.ts';

const SENTENCES = [
  'The keeper showed him the stairs, the lamp, the brass fittings he had polished for decades, and the small window where the kettle always stood.',
  'In winter the wind came straight from the north, carrying salt and ice, and the keeper wrapped himself in two coats and a scarf his sister had knitted.',
  'He kept a logbook of every ship that passed, written in a careful hand, with the weather, the hour, and a short note about anything unusual he had seen.',
  'Some nights there was nothing to write but the names of the stars, and he wrote those too, because the habit of writing kept his mind awake.',
  'The engineer listened, took notes, and promised that the new light would be just as bright, though it would never climb the stairs by itself.',
  'On the last evening the keeper lit the lamp one final time, sat by the window with his tea, and watched the beam turn slowly over the dark water.',
  'The engineer visited once a year to check the new light, and each time he brought a jar of honey from his mother, who remembered the keeper well.',
  'Years later the logbooks went to the town museum, where visitors still read the careful notes about ships, storms and stars in a small quiet room.',
];
const LONG = SENTENCES.join(' ');
const voice = { engine: 'flite', base: 'slt' } as const;

interface Rendered {
  pieces: number;
  words: WordTiming[];
  samples: Float32Array;
}

/** Nobody else on the thread. */
const ALONE: Turn = { othersSlack: Infinity, sinceShortArrival: Infinity };
/** A newcomer waits for its first audio behind every piece. */
const CROWDED: Turn = { othersSlack: 0, sinceShortArrival: 0.1 };

/** Renders in-process as 16-bit PCM, counting the pieces (one turn each), each turn finding the thread as `turn` says. */
async function render(text: string, turn: Turn = ALONE): Promise<Rendered> {
  const req: SpeechRequest = { text, voice, speed: 1, format: 'pcm' };
  const chunks: Uint8Array[] = [];
  const words: WordTiming[] = [];
  let pieces = 0;
  await renderSpeech(req, {
    turn: async () => {
      pieces++;
      return turn;
    },
    emit: async (bytes, _seconds, w) => {
      chunks.push(bytes);
      if (w) words.push(...w);
    },
  });
  return { pieces, words, samples: decodePcm16(concatBytes(chunks)) };
}

describe('clause pieces', () => {
  test('a sentence is cut after clause punctuation or before a word that opens a clause, never inside a word or a short sentence', () => {
    const pieces = (text: string) => cutAtClauses({ text, break: 'sentence', mapped: verbatim(text) });
    assert.deepEqual(
      pieces('Thank you for calling, please hold the line.').map((p) => p.text),
      ['Thank you for calling, please hold the line.'],
    );
    const cut = pieces(SENTENCES[0]);
    assert.deepEqual(
      cut.map((p) => [p.text, p.break]),
      [
        ['The keeper showed him the stairs,', 'clause'],
        ['the lamp, the brass fittings he had polished for decades,', 'clause'],
        ['and the small window where the kettle always stood.', 'sentence'],
      ],
    );
    // A long clause without punctuation is cut before its conjunction, not inside "a jar of honey".
    const run = 'The engineer came back every single year to check the new light and brought a jar of honey from his mother each time.';
    assert.deepEqual(
      pieces(run).map((p) => p.text),
      ['The engineer came back every single year to check the new light', 'and brought a jar of honey from his mother each time.'],
    );
    // The pieces keep every character's place in the source, for word timings.
    for (const p of cut) assert.equal(SENTENCES[0].slice(p.mapped.starts[0], p.mapped.ends[p.mapped.ends.length - 1]), p.text);
  });

  test('a long reading is rendered in clause pieces while others wait, in whole sentences alone; a short request keeps its sentence whole', async () => {
    assert.ok(LONG.length >= LONG_READING_CHARS);
    const clauses = SENTENCES.reduce((n, s) => n + cutAtClauses({ text: s, break: 'sentence', mapped: verbatim(s) }).length, 0);
    assert.ok(clauses > SENTENCES.length);
    assert.equal((await render(LONG, CROWDED)).pieces, clauses);
    assert.equal((await render(LONG, ALONE)).pieces, SENTENCES.length);
    // A sentence of a short request stays whole, clauses and all.
    const sentence = 'In winter the wind came from the north, carrying salt and ice, and he wore two coats.';
    assert.ok(cutAtClauses({ text: sentence, break: 'sentence', mapped: verbatim(sentence) }).length > 1);
    const short = await render(sentence, CROWDED);
    assert.equal(short.pieces, 1, 'the sentence whole');
  });

  test('every word of a long reading in clause pieces is timed once, in order, where its audio is; no speech is lost at the joins', async () => {
    const long = await render(LONG, CROWDED);
    const rate = 24_000;
    const expected = [...LONG.matchAll(/\S+/g)].map((m) => m[0].replace(/[.,]$/, ''));
    assert.deepEqual(
      long.words.map((w) => LONG.slice(w.offset, w.offset + w.length)),
      expected,
    );
    const duration = long.samples.length / rate;
    const loud = rms(long.samples);
    let previous = -1;
    for (const w of long.words) {
      assert.ok(w.start > previous, `${w.word} at ${w.start} s, after the previous word's start ${previous} s`);
      assert.ok(w.end > w.start && w.end <= duration + 1e-3, `${w.word}: ${w.start}-${w.end} s of ${duration} s`);
      const span = long.samples.subarray(Math.floor(w.start * rate), Math.ceil(w.end * rate));
      assert.ok(rms(span) > loud * 0.1, `${w.word} (${w.start}-${w.end} s) is timed on near silence`);
      previous = w.start;
    }
    // The same sentences rendered whole, one request each: as much speech, give or take the pauses' share.
    let whole = 0;
    for (const s of SENTENCES) whole += speechSeconds({ samples: (await render(s)).samples, rate });
    const pieces = speechSeconds({ samples: long.samples, rate });
    assert.ok(pieces > whole * 0.95, `${pieces} s of speech in clause pieces against ${whole} s in whole sentences`);
  });
});
