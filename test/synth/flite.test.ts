import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineChunk } from '../../src/synth/engine.ts';
import { compileFlite } from '../../src/synth/engines/flite/compiled.ts';
import { fliteCall, toFliteText } from '../../src/synth/engines/flite/engine.ts';
import { FLITE_VOICES } from '../../src/synth/engines/flite/info.ts';
import { FliteLibrary } from '../../src/synth/engines/flite/library.ts';
import { parseSegments } from '../../src/synth/engines/flite/segments.ts';
import { loadEngine } from '../../src/synth/registry.ts';
import { engineConformance } from './engine-conformance.ts';
import { concat, decodeWav, medianPitch, render, rms, speechSeconds } from './helpers.ts';

engineConformance({ engine: 'flite', voice: { engine: 'flite', base: 'slt' }, lowPitchHz: 110, highPitchHz: 220 });

describe('flite specifics', () => {
  test('every voice speaks at its own rate', async () => {
    const engine = await loadEngine('flite');
    for (const v of FLITE_VOICES) {
      const a = await render(engine, 'Every voice should say this sentence clearly.', { engine: 'flite', base: v.base });
      assert.equal(a.rate, v.sampleRate, v.base);
      assert.ok(rms(a.samples) > 0.02, `${v.base} rms`);
      const secs = speechSeconds(a);
      assert.ok(secs > 1.2 && secs < 4.5, `${v.base}: ${secs}s`);
    }
  });

  test('pitch moves every voice that claims the control; rms says it does not', async () => {
    const engine = await loadEngine('flite');
    const text = 'This sentence is spoken to measure the pitch of the voice.';
    for (const v of engine.info.voices) {
      const controls = v.controls ?? engine.info.capabilities.controls;
      const low = medianPitch(await render(engine, text, { engine: 'flite', base: v.base, controls: { pitchHz: 90 } }));
      const high = medianPitch(await render(engine, text, { engine: 'flite', base: v.base, controls: { pitchHz: 170 } }));
      if (controls.includes('pitchHz')) assert.ok(high > low * 1.5, `${v.base}: ${low} -> ${high} Hz`);
      else assert.ok(Math.abs(high - low) < 10, `${v.base} should not move: ${low} -> ${high} Hz`);
    }
  });

  test('the male voices are lower than slt', async () => {
    const engine = await loadEngine('flite');
    const text = 'This sentence is spoken to measure the pitch of the voice.';
    const slt = medianPitch(await render(engine, text, { engine: 'flite', base: 'slt' }));
    for (const base of ['awb', 'rms', 'kal16']) {
      const p = medianPitch(await render(engine, text, { engine: 'flite', base }));
      assert.ok(p < slt * 0.8, `${base} ${p} Hz vs slt ${slt} Hz`);
    }
  });

  test('call settings: stretch is the inverse rate, pitch an integer, text ASCII', () => {
    const said = fliteCall('Café “quoted” — done', { engine: 'flite', base: 'SLT', controls: { pitchHz: 181.7, rate: 2 } }, 1);
    assert.deepEqual(said, { base: 'slt', text: 'Cafe "quoted" ,  done', call: { stretch: 0.5, f0: 182 } });
    assert.equal(fliteCall('Hello.', { engine: 'flite', base: 'slt' }, 1).call.f0, undefined);
    assert.equal(toFliteText('naïve 日本'), 'naive   ');
  });

  test("speed scales each voice's own duration stretch (kal16 sets 1.1 for itself)", () => {
    const stretch = (base: string, speed: number): number => fliteCall('Hello.', { engine: 'flite', base }, speed).call.stretch;
    assert.equal(stretch('kal16', 1), 1.1);
    assert.equal(stretch('kal16', 2), 0.55);
    assert.equal(stretch('slt', 1), 1);
  });

  test('voices with a lexicon voice get the same phones from it as from their own analysis', () => {
    // Dictionary words, names, numbers and made-up words (letter-to-sound rules), one sentence each.
    const words = (
      'the library opens at nine every morning and students fill the reading room upstairs before coffee ' +
      'Edinburgh Worcestershire Siobhan Nguyen Voxsmith zyxtrel blorpish kryptonite quixotic rhythm ' +
      'twenty-three 1984 3.5 Dr St colonel yacht choir subtle island February Wednesday thoroughly'
    ).split(' ');
    const library = FliteLibrary.load();
    const phones = (voice: string): string => library.phones(voice, words.map((w) => `${w}.`).join(' '));
    const checked = FLITE_VOICES.filter((v) => v.lexiconVoice !== undefined);
    assert.deepEqual(checked.map((v) => v.base).sort(), ['awb', 'rms', 'slt']);
    for (const v of checked) assert.deepEqual(phones(v.base), phones(v.lexiconVoice!), `${v.base} against ${v.lexiconVoice}`);
    assert.match(phones('slt'), /^pau dh ax pau l ay b r eh r iy pau ow p ax n z pau/);
  });

  test('the resident library renders a sentence alike after long sentences in other voices', async () => {
    const engine = await loadEngine('flite');
    const text = 'Same words, same sound.';
    const said = fliteCall(text, { engine: 'flite', base: 'slt' }, 1);
    const pieces: Float32Array[] = [];
    new FliteLibrary(compileFlite()).speak(said.base, said.text, said.call, (p) => void pieces.push(p.samples));
    const fresh = concat(pieces);
    assert.ok(fresh.length > 10_000);
    const long = 'The library on the corner opens at nine every morning, and the reading room upstairs fills with students. '.repeat(3);
    for (const base of ['awb', 'kal16', 'rms', 'slt']) {
      await render(engine, long, { engine: 'flite', base });
      const again = await render(engine, text, { engine: 'flite', base: 'slt' });
      assert.deepEqual(again.samples, fresh, `after a long ${base} sentence`);
    }
  });

  test("the library says a sentence as Debian's flite program does: its length and its phones' times", () => {
    const dir = mkdtempSync(join(tmpdir(), 'flite-native-'));
    const library = FliteLibrary.load();
    try {
      for (const text of NATIVE_SENTENCES) {
        const wav = join(dir, 'x.wav');
        const printed = execFileSync('flite', ['-voice', 'slt', '-psdur', '-t', text, '-o', wav], { encoding: 'utf8' });
        const native = decodeWav(readFileSync(wav));
        const pieces: Float32Array[] = [];
        let segments = '';
        library.speak('slt', toFliteText(text), { stretch: 0 }, (p) => {
          if (p.first) segments = library.segments();
          pieces.push(p.samples);
        });
        const ours = concat(pieces);
        const ratio = ours.length / native.samples.length;
        assert.ok(Math.abs(ratio - 1) <= 0.01, `${text}: ${ours.length} samples, flite wrote ${native.samples.length}`);
        const mine = parseSegments([segments]);
        const theirs = parseSegments(printed.split('\n'));
        assert.deepEqual(
          mine.map((s) => s.phone),
          theirs.map((s) => s.phone),
          text,
        );
        // flite prints end times to the millisecond.
        mine.forEach((s, i) =>
          assert.ok(Math.abs(s.end - theirs[i].end) <= 0.0011, `${text}: ${s.phone} at ${s.end}, flite ${theirs[i].end}`),
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('streaming: the pieces of a long sentence are handed over while the render call still runs', async () => {
    const engine = await loadEngine('flite');
    const voice = { engine: 'flite', base: 'slt' } as const;
    const text = 'When the morning train finally pulled into the crowded station, everyone on the platform hurried forward to find a seat.';
    const library = FliteLibrary.load();
    const events: string[] = [];
    const streamed: EngineChunk[] = [];
    const speak = library.speak;
    library.speak = (...args) => {
      const out = speak.apply(library, args);
      events.push('call returned');
      return out;
    };
    let yielded = 0;
    try {
      for await (const _ of engine.synthesize(text, voice, {
        speed: 1,
        stream: (chunk) => {
          events.push('chunk');
          streamed.push(chunk);
        },
      }))
        yielded++;
    } finally {
      library.speak = speak;
    }
    assert.equal(yielded, 0, 'streamed chunks are not yielded as well');
    assert.ok(streamed.length >= 3, `${streamed.length} chunks`);
    assert.equal(events[0], 'chunk');
    assert.deepEqual(events.slice(-1), ['call returned']);
    assert.equal(events.filter((e) => e === 'call returned').length, 1);
    // The words ride on the first chunk, timed across the whole sentence.
    const words = streamed[0].words ?? [];
    assert.equal(words.length, 20);
    assert.ok(streamed.slice(1).every((c) => c.words === undefined));
    const total = streamed.reduce((n, c) => n + c.samples.length, 0);
    assert.ok(
      Math.abs(words[words.length - 1].end! - total / 16_000) < 0.5,
      `last word ends ${words[words.length - 1].end}s of ${total / 16_000}s`,
    );
    // The same audio as without the sink.
    assert.deepEqual(concat(streamed.map((c) => c.samples)), (await render(engine, text, voice)).samples);
  });

  test('aborting from the stream sink stops flite: no chunk after it', async () => {
    const engine = await loadEngine('flite');
    const voice = { engine: 'flite', base: 'slt' } as const;
    const text = 'When the morning train finally pulled into the crowded station, everyone on the platform hurried forward to find a seat.';
    const full = await render(engine, text, voice);
    const ac = new AbortController();
    const got: number[] = [];
    for await (const _ of engine.synthesize(text, voice, {
      speed: 1,
      signal: ac.signal,
      stream: (chunk) => {
        got.push(chunk.samples.length);
        if (got.length === 2) ac.abort();
      },
    }));
    assert.equal(got.length, 2);
    assert.ok(got[0] + got[1] < full.samples.length / 3);
    // The library goes on: the next sentence is whole.
    assert.equal((await render(engine, text, voice)).samples.length, full.samples.length);
  });

  test('memory stays where it was over many sentences', async () => {
    const engine = await loadEngine('flite');
    const library = FliteLibrary.load();
    const say = async (i: number): Promise<void> => {
      await render(engine, `Sentence number ${i} is spoken in the voice of the day, ${i % 7} times over.`, {
        engine: 'flite',
        base: FLITE_VOICES[i % FLITE_VOICES.length].base,
      });
    };
    for (let i = 0; i < 20; i++) await say(i);
    const settled = library.memoryBytes;
    for (let i = 20; i < 220; i++) await say(i);
    assert.equal(library.memoryBytes, settled);
  });
});

const NATIVE_SENTENCES = [
  'The quick brown fox jumps over the lazy dog.',
  'Hello world, this is a test of the resident flite library.',
  'Is it raining in Edinburgh on the twenty third of February?',
  'She sells sea shells by the sea shore, and the shells she sells are surely seashells.',
  'Please call Stella.',
];
