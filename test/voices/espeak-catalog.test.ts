// Keeps the committed catalog honest against the espeak-ng build that is actually installed: every base and
// variant must be one espeak-ng selects, and the voices must speak with the gender the catalog claims.
// (test/synth/espeak.test.ts checks the engine's static voice and variant tables against the build itself.)
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { measurePitch } from '../../src/audio/analysis.ts';
import type { Engine } from '../../src/synth/engine.ts';
import { ESPEAK_VARIANTS, ESPEAK_VOICES } from '../../src/synth/engines/espeak/info.ts';
import { loadEngine } from '../../src/synth/registry.ts';
import { BUILTIN_VOICES } from '../../src/voices/builtin.ts';
import { ESPEAK_EXCLUDED } from '../../scripts/lib/espeak-languages.ts';
import { audibleSeconds, renderWhole, speaks } from '../../scripts/lib/speech-probe.ts';

const espeakVoices = BUILTIN_VOICES.filter((v) => v.engine === 'espeak');
let engine: Engine;

before(async () => {
  engine = await loadEngine('espeak');
});

test('every catalog base is a voice espeak-ng lists', () => {
  const listed = new Set(ESPEAK_VOICES.map((v) => v.base));
  assert.ok(listed.size > 100, `espeak-ng lists ${listed.size} voices`);
  for (const v of espeakVoices) assert.ok(listed.has(v.spec.base), `${v.id}: base ${v.spec.base} is not listed`);
});

test('every base and variant is selectable by name', async () => {
  // espeak-ng keeps the previous voice when set_voice fails; the engine turns that into an error.
  await assert.rejects(renderWhole(engine, { engine: 'espeak', base: 'en-us', variant: 'no-such-variant' }, '1'), /unknown voice/);
  const seen = new Set<string>();
  for (const v of espeakVoices) {
    const name = `${v.spec.base}+${v.spec.variant ?? ''}`;
    if (seen.has(name)) continue;
    seen.add(name);
    await assert.doesNotReject(renderWhole(engine, v.spec, '1'), `${v.id}: espeak-ng cannot select ${name}`);
  }
});

test('variants are shipped ones whose gender matches the voice', () => {
  const variants = new Map(ESPEAK_VARIANTS.map((v) => [v.file, v]));
  for (const v of espeakVoices) {
    if (v.spec.variant === undefined) {
      assert.equal(v.gender, 'male', `${v.id}: espeak's plain language voices sound male`);
      continue;
    }
    const variant = variants.get(v.spec.variant);
    assert.ok(variant, `${v.id}: variant ${v.spec.variant} is not shipped`);
    assert.equal(variant.gender, v.gender, v.id);
  }
});

test('every espeak-ng language voice is in the catalog or excluded on purpose', () => {
  const used = new Set(espeakVoices.map((v) => v.spec.base));
  const missing = ESPEAK_VOICES.filter((v) => !used.has(v.base) && !ESPEAK_EXCLUDED[v.base]).map((v) => v.base);
  assert.deepEqual(missing, []);
});

test('female and male voices of major languages speak, at clearly different pitches', async () => {
  const text = 'The quick brown fox jumps over the lazy dog. 1 2 3 4 5 6 7 8 9 10.';
  const majorKeys = new Set(espeakVoices.filter((v) => v.id.endsWith('-female-2')).map((v) => v.id.replace(/-female-2$/, '')));
  assert.ok(majorKeys.size >= 18, `${majorKeys.size} major languages`);
  for (const key of majorKeys) {
    const pitch: Record<string, number> = {};
    for (const suffix of ['female-1', 'female-2', 'male-1', 'male-2']) {
      const v = espeakVoices.find((x) => x.id === `${key}-${suffix}`);
      assert.ok(v, `${key}-${suffix}`);
      const { samples, rate } = await renderWhole(engine, v.spec, text);
      assert.ok(audibleSeconds(samples, rate) > 0.5, `${v.id} is nearly silent`);
      pitch[suffix] = measurePitch(samples, rate).medianHz;
    }
    const lowestFemale = Math.min(pitch['female-1'], pitch['female-2']);
    const highestMale = Math.max(pitch['male-1'], pitch['male-2']);
    const female = (pitch['female-1'] + pitch['female-2']) / 2;
    const male = (pitch['male-1'] + pitch['male-2']) / 2;
    const detail = `${key}: ${JSON.stringify(pitch)}`;
    assert.ok(lowestFemale > highestMale * 1.15, detail);
    assert.ok(female > male * 1.5, detail);
    assert.ok(male > 70 && male < 140, detail);
    assert.ok(female > 140 && female < 260, detail);
    // The descriptions promise a lower "warm" female 2 and a "deep" male 2.
    assert.ok(pitch['female-2'] < pitch['female-1'], detail);
    assert.ok(pitch['male-2'] < pitch['male-1'], detail);
  }
});

test('every language voice produces audio', async () => {
  for (const base of new Set(espeakVoices.map((v) => v.spec.base))) {
    assert.ok(await speaks(engine, { engine: 'espeak', base }), `${base} is silent on every probe text`);
  }
});
