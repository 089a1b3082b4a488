// Keeps the committed catalog honest against the espeak-ng build that is actually installed: every base and
// variant must be one espeak-ng selects, and the voices must speak with the gender the catalog claims.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { BUILTIN_VOICES } from '../../src/voices/builtin.ts';
import { ESPEAK_EXCLUDED } from '../../src/voices/espeak-languages.ts';
import { audibleSeconds, loadEspeakInventory, medianPitchHz, type EspeakInventory } from '../../src/voices/espeak-inventory.ts';

const espeakVoices = BUILTIN_VOICES.filter((v) => v.engine === 'espeak');
let inv: EspeakInventory;

before(async () => {
  inv = await loadEspeakInventory();
});

const selector = (base: string, variant?: string): string => (variant ? `${base}+${variant}` : base);

test('every catalog base is a voice espeak-ng lists', () => {
  const listed = new Set(inv.voices.map((v) => v.base));
  assert.ok(listed.size > 100, `espeak-ng lists ${listed.size} voices`);
  for (const v of espeakVoices) assert.ok(listed.has(v.spec.base), `${v.id}: base ${v.spec.base} is not listed`);
});

test('every base and variant is selectable by name', () => {
  // espeak-ng keeps the previous voice when set_voice fails, so an unknown name would silently speak wrong.
  assert.equal(inv.selects('no-such-voice'), false);
  const seen = new Set<string>();
  for (const v of espeakVoices) {
    const name = selector(v.spec.base, v.spec.variant);
    if (seen.has(name)) continue;
    seen.add(name);
    assert.ok(inv.selects(name), `${v.id}: set_voice("${name}") fails`);
  }
});

test('variants are shipped ones whose gender matches the voice', () => {
  const variants = new Map(inv.variants.map((v) => [v.file, v]));
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
  const missing = inv.voices.filter((v) => !used.has(v.base) && !ESPEAK_EXCLUDED[v.base]).map((v) => v.base);
  assert.deepEqual(missing, []);
});

test('female and male voices of major languages speak, at clearly different pitches', () => {
  const text = 'The quick brown fox jumps over the lazy dog. 1 2 3 4 5 6 7 8 9 10.';
  const majorKeys = new Set(
    espeakVoices.filter((v) => v.id.endsWith('-female-2')).map((v) => v.id.replace(/-female-2$/, '')),
  );
  assert.ok(majorKeys.size >= 18, `${majorKeys.size} major languages`);
  for (const key of majorKeys) {
    const pitch: Record<string, number> = {};
    for (const suffix of ['female-1', 'female-2', 'male-1', 'male-2']) {
      const v = espeakVoices.find((x) => x.id === `${key}-${suffix}`);
      assert.ok(v, `${key}-${suffix}`);
      const samples = inv.render(selector(v.spec.base, v.spec.variant), text);
      assert.ok(audibleSeconds(samples) > 0.5, `${v.id} is nearly silent`);
      pitch[suffix] = medianPitchHz(samples);
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

test('every language voice produces audio', () => {
  const probes = ['1 2 3', 'Hello, world.', 'mae govannen'];
  for (const base of new Set(espeakVoices.map((v) => v.spec.base))) {
    const best = Math.max(...probes.map((t) => audibleSeconds(inv.render(base, t))));
    assert.ok(best >= 0.15, `${base}: ${best.toFixed(2)} s audible`);
  }
});
