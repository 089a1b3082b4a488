import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fliteArgs, toFliteText } from '../../src/synth/engines/flite/engine.ts';
import { FLITE_VOICES } from '../../src/synth/engines/flite/info.ts';
import { compileFlite } from '../../src/synth/engines/flite/compiled.ts';
import { FliteProgram } from '../../src/synth/engines/flite/program.ts';
import { readPcm16Wav } from '../../src/synth/engines/flite/wav.ts';
import { loadEngine } from '../../src/synth/registry.ts';
import { engineConformance } from './engine-conformance.ts';
import { medianPitch, render, rms, speechSeconds } from './helpers.ts';

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

  test('command line: stretch is the inverse rate, pitch an integer, text ASCII', () => {
    const args = fliteArgs('Café “quoted” — done', { engine: 'flite', base: 'SLT', controls: { pitchHz: 181.7, rate: 2 } }, 1);
    assert.deepEqual(args.slice(0, 5), ['flite', '-voice', 'slt', '--setf', 'duration_stretch=0.5000']);
    assert.ok(args.includes('int_f0_target_mean=182'));
    assert.equal(args[args.indexOf('-t') + 1], 'Cafe "quoted" ,  done');
    assert.equal(toFliteText('naïve 日本'), 'naive   ');
  });

  test("speed scales each voice's own duration stretch (kal16 sets 1.1 for itself)", () => {
    const stretch = (base: string, speed: number): string | undefined =>
      fliteArgs('Hello.', { engine: 'flite', base }, speed).find((a) => a.startsWith('duration_stretch='));
    assert.equal(stretch('kal16', 1), 'duration_stretch=1.1000');
    assert.equal(stretch('kal16', 2), 'duration_stretch=0.5500');
    assert.equal(stretch('slt', 1), 'duration_stretch=1.0000');
  });

  test('voices with a lexicon voice get the same phones from it as from their own run', () => {
    // Dictionary words, names, numbers and made-up words (letter-to-sound rules), one utterance each.
    const words = (
      'the library opens at nine every morning and students fill the reading room upstairs before coffee ' +
      'Edinburgh Worcestershire Siobhan Nguyen Voxsmith zyxtrel blorpish kryptonite quixotic rhythm ' +
      'twenty-three 1984 3.5 Dr St colonel yacht choir subtle island February Wednesday thoroughly'
    ).split(' ');
    const program = FliteProgram.load();
    const phones = (voice: string): string[] =>
      program.run(['flite', '-voice', voice, '-ps', '-t', words.map((w) => `${w}.`).join(' '), '-o', 'none']).printed;
    const checked = FLITE_VOICES.filter((v) => v.lexiconVoice !== undefined);
    assert.deepEqual(checked.map((v) => v.base).sort(), ['awb', 'rms', 'slt']);
    for (const v of checked) assert.deepEqual(phones(v.base), phones(v.lexiconVoice!), `${v.base} against ${v.lexiconVoice}`);
  });

  test('every run starts from a fresh state: the same audio as a new program, after runs that grew the memory', async () => {
    const engine = await loadEngine('flite');
    const text = 'Same words, same sound.';
    const fresh = new FliteProgram(compileFlite()).run(fliteArgs(text, { engine: 'flite', base: 'slt' }, 1)).output('speech.wav');
    assert.ok(fresh && fresh.length > 10_000);
    // Long sentences in other voices grow the shared memory (and leave their state in it) before each repeat.
    const long = 'The library on the corner opens at nine every morning, and the reading room upstairs fills with students. '.repeat(3);
    for (const base of ['awb', 'kal16', 'rms', 'slt']) {
      await render(engine, long, { engine: 'flite', base });
      const again = await render(engine, text, { engine: 'flite', base: 'slt' });
      assert.deepEqual(again.samples, readPcm16Wav(fresh).samples, `after a long ${base} run`);
    }
  });
});
