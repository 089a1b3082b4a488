// The contract every engine meets, as one suite an engine's test file calls with its own voices.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Engine } from '../../src/synth/engine.ts';
import { engineInfo, languageOf, loadEngine } from '../../src/synth/registry.ts';
import type { EngineId, VoiceSpec } from '../../src/synth/voice-spec.ts';
import { medianPitch, peak, render, rms, speechSeconds } from './helpers.ts';

export interface ConformanceCase {
  engine: EngineId;
  /** An English voice. */
  voice: VoiceSpec;
  /** Two pitches (Hz) that should come out in the same order when measured. */
  lowPitchHz: number;
  highPitchHz: number;
  /**
   * false for a generated test model whose audio is a known function of its input (a sine), not speech: the
   * checks of speaking rate and level do not apply to it.
   */
  speech?: false;
}

// 16 words, 2 sentences: long enough that pauses and rate show in the duration.
const TEXT = 'The quick brown fox jumps over the lazy dog. Then it runs back home across the quiet green field.';
const WORDS = 19;

export function engineConformance(c: ConformanceCase): void {
  const { capabilities } = engineInfo(c.engine);
  const noPitch = capabilities.controls.includes('pitchHz') ? false : `${c.engine} has no pitch control`;
  const notSpeech = c.speech === false ? 'a generated test model renders a sine, not speech' : false;
  describe(`engine conformance: ${c.engine}`, () => {
    let engine: Engine;
    before(async () => {
      engine = await loadEngine(c.engine);
    });

    test('metadata matches the engine', () => {
      assert.equal(engine.info.id, c.engine);
      if (engine.info.voices.length > 0) {
        assert.ok(engine.info.languages.length > 0);
        assert.ok(engine.info.voices.some((v) => v.base === c.voice.base));
      } else {
        // Its voices are the models installed from VOICES_DIR, known to the registry rather than listed.
        assert.ok(languageOf(c.voice), `${c.voice.base} is not an installed voice`);
      }
      assert.ok(engine.info.sampleRate >= 8000);
    });

    test('yields non-silent audio', async () => {
      const a = await render(engine, TEXT, c.voice);
      assert.ok(a.chunks >= 1);
      assert.ok(a.rate >= 8000, `rate ${a.rate}`);
      assert.ok(rms(a.samples) > 0 && peak(a.samples) <= 1, `rms ${rms(a.samples)}, peak ${peak(a.samples)}`);
      assert.ok(speechSeconds(a) > 0);
    });

    test('speaks at a conversational rate and level', { skip: notSpeech }, async () => {
      const a = await render(engine, TEXT, c.voice);
      assert.ok(rms(a.samples) > 0.02, `rms ${rms(a.samples)}`);
      assert.ok(peak(a.samples) > 0.15 && peak(a.samples) <= 1, `peak ${peak(a.samples)}`);
      const wps = WORDS / speechSeconds(a);
      // Conversational English runs at 2-4 words a second.
      assert.ok(wps > 1.6 && wps < 5, `${wps.toFixed(2)} words/s`);
    });

    test('speed 2 takes about half the time of speed 1', async () => {
      const normal = speechSeconds(await render(engine, TEXT, c.voice, { speed: 1 }));
      const fast = speechSeconds(await render(engine, TEXT, c.voice, { speed: 2 }));
      const slow = speechSeconds(await render(engine, TEXT, c.voice, { speed: 0.75 }));
      const ratio = fast / normal;
      assert.ok(ratio > 0.4 && ratio < 0.65, `speed 2 / speed 1 = ${ratio.toFixed(3)}`);
      assert.ok(slow > normal * 1.15, `speed 0.75 gave ${slow}s vs ${normal}s`);
    });

    test('the rate control multiplies the speed', async () => {
      const normal = speechSeconds(await render(engine, TEXT, c.voice, { speed: 1 }));
      const fast = speechSeconds(await render(engine, TEXT, { ...c.voice, controls: { rate: 1.5 } }, { speed: 1 }));
      const ratio = fast / normal;
      assert.ok(ratio > 0.55 && ratio < 0.8, `rate 1.5 ratio ${ratio.toFixed(3)}`);
    });

    test('the pitch control moves the measured pitch', { skip: noPitch }, async () => {
      const low = medianPitch(await render(engine, TEXT, { ...c.voice, controls: { pitchHz: c.lowPitchHz } }));
      const high = medianPitch(await render(engine, TEXT, { ...c.voice, controls: { pitchHz: c.highPitchHz } }));
      assert.ok(low > 50 && high > 50, `pitches ${low} / ${high}`);
      assert.ok(high > low * 1.3, `low ${low.toFixed(1)} Hz, high ${high.toFixed(1)} Hz`);
    });

    test('an aborted signal yields nothing', async () => {
      const ac = new AbortController();
      ac.abort();
      const a = await render(engine, TEXT, c.voice, { speed: 1, signal: ac.signal });
      assert.equal(a.samples.length, 0);
    });

    test('aborting mid-stream stops the chunks', async () => {
      const full = await render(engine, TEXT, c.voice);
      const ac = new AbortController();
      let got = 0;
      let after = 0;
      for await (const chunk of engine.synthesize(TEXT, c.voice, { speed: 1, signal: ac.signal })) {
        if (ac.signal.aborted) after++;
        got += chunk.samples.length;
        ac.abort();
      }
      assert.equal(after, 0, 'no chunk after the abort');
      assert.ok(got > 0 && got <= full.samples.length);
    });

    test('breaking the iteration leaves the engine usable', async () => {
      for await (const _ of engine.synthesize(TEXT, c.voice, { speed: 1 })) break;
      const a = await render(engine, 'Still working.', c.voice);
      assert.ok(rms(a.samples) > 0.02);
    });

    test('an unknown base voice is an error', async () => {
      await assert.rejects(render(engine, 'Hello.', { ...c.voice, base: 'no-such-voice' }), /unknown voice/);
    });
  });
}
