import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dbToGain } from '../../src/audio/loudness.ts';
import type { Engine } from '../../src/synth/engine.ts';
import { loadEngine } from '../../src/synth/registry.ts';
import type { VoiceSpec } from '../../src/synth/voice-spec.ts';
import {
  DEFAULT_LOUDNESS_TARGET_LUFS,
  gainKey,
  gainTable,
  measureGainDb,
  setLoudnessTarget,
  voiceGain,
} from '../../src/synth/voice-loudness.ts';
import { BUILTIN_VOICES, DEFAULT_VOICE_ID, getBuiltinVoice } from '../../src/voices/builtin.ts';

// An engine that fails if it is asked for anything: voiceGain needs one only when it has to measure.
const noEngine = {
  info: { id: 'flite' },
  synthesize() {
    throw new Error('the engine was asked to render');
  },
} as unknown as Engine;

describe("built-in voices' measured-ahead gains (voice-gains.json)", () => {
  after(() => setLoudnessTarget(DEFAULT_LOUDNESS_TARGET_LUFS));

  test('every built-in voice has a gain, at the default target', () => {
    const table = gainTable();
    assert.equal(table.target_lufs, DEFAULT_LOUDNESS_TARGET_LUFS);
    const missing = BUILTIN_VOICES.filter((v) => !Object.hasOwn(table.gains_db, gainKey(v.spec))).map((v) => v.id);
    assert.deepEqual(missing, [], 'run scripts/gen-voice-gains.ts again');
  });

  test('the table is what measuring gives today (default voice and a spread of others, both engines)', async () => {
    const sample = [getBuiltinVoice(DEFAULT_VOICE_ID)!, ...BUILTIN_VOICES.filter((_, i) => i % 37 === 5)];
    assert.ok(new Set(sample.map((v) => v.spec.engine)).size >= 2);
    for (const voice of sample) {
      const measured = await measureGainDb(await loadEngine(voice.spec.engine), voice.spec, DEFAULT_LOUDNESS_TARGET_LUFS);
      const tabled = gainTable().gains_db[gainKey(voice.spec)];
      // flite renders the same samples every time (so its gains are exact); espeak's variants breathe with a random noise source, and
      // one voice measured five times in a row spreads over about 0.3 dB.
      const tolerance = voice.spec.engine === 'flite' ? 1e-6 : 0.4;
      assert.ok(
        Math.abs(measured - tabled) < tolerance,
        `${voice.id}: measured ${measured.toFixed(3)} dB, table ${tabled} dB (run scripts/gen-voice-gains.ts again)`,
      );
    }
  });

  test('a built-in voice takes its gain from the table without rendering; other voices and other targets are measured', async () => {
    const builtin = getBuiltinVoice('flite-awb')!.spec;
    assert.equal(await voiceGain(noEngine, builtin), dbToGain(gainTable().gains_db[gainKey(builtin)]));
    const tuned: VoiceSpec = { ...builtin, controls: { pitchHz: 150 } };
    await assert.rejects(() => voiceGain(noEngine, tuned), /asked to render/);
    setLoudnessTarget(DEFAULT_LOUDNESS_TARGET_LUFS - 4);
    await assert.rejects(() => voiceGain(noEngine, builtin), /asked to render/, 'the table holds gains for the default target only');
    const quieter = await voiceGain(await loadEngine('flite'), builtin);
    setLoudnessTarget(DEFAULT_LOUDNESS_TARGET_LUFS);
    const table = await voiceGain(noEngine, builtin);
    assert.ok(Math.abs(20 * Math.log10(table / quieter) - 4) < 0.3, 'measured 4 LU under the default target, about 4 dB below the table');
  });
});
