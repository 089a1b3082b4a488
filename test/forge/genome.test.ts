import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { breedGenomes, seededRandom } from '../../src/forge/breed.ts';
import { getBuiltinVoice } from '../../src/voices/builtin.ts';
import { CALIBRATION, calibrationOf } from '../../src/synth/engines/calibration.ts';
import { cloneCandidates, intelligibleEnough, MAX_WER_GAP_POINTS, nearestBase } from '../../src/forge/clone.ts';
import { fitTextDigest } from '../../src/forge/fit-text.ts';
import {
  GENE_NAMES,
  GENES,
  genderOfPitch,
  genomeOfBuiltin,
  genomeToJson,
  genomeToSpec,
  GenomeError,
  parseGenome,
  type VoiceGenome,
} from '../../src/forge/genome.ts';

function builtinGenome(id: string): VoiceGenome {
  const v = getBuiltinVoice(id);
  assert.ok(v, id);
  return genomeOfBuiltin(v);
}

const LOW = builtinGenome('espeak-en-us-male-2');
const HIGH = builtinGenome('espeak-en-us-female-1');

describe('genome', () => {
  test('the calibration was made with the current fit texts', () => {
    assert.equal(CALIBRATION.fit_text_digest, fitTextDigest(), 'run scripts/gen-forge-calibration.ts again');
  });

  test("a built-in voice's genome renders its own pitch line", () => {
    // en-us + f3 ships `pitch 140 240`; en-us alone uses espeak's default `pitch 82 118`.
    assert.deepEqual(calibrationOf('espeak-en-us-female-1')?.pitch_line, [140, 240]);
    const f3 = genomeToSpec(HIGH);
    assert.equal(f3.engine, 'espeak');
    assert.equal(f3.variant, 'f3');
    assert.ok(Math.abs((f3.controls?.pitchHz ?? 0) - 140) < 0.5, JSON.stringify(f3));
    assert.ok(Math.abs((f3.controls?.pitchRangeHz ?? 0) - 100) < 0.5, JSON.stringify(f3));
    const plain = genomeToSpec(builtinGenome('espeak-en-us-male-1'));
    assert.ok(
      Math.abs((plain.controls?.pitchHz ?? 0) - 82) < 0.5 && Math.abs((plain.controls?.pitchRangeHz ?? 0) - 36) < 0.5,
      JSON.stringify(plain),
    );
    assert.equal(plain.controls?.rate, 1);
    assert.equal(plain.controls?.formantScale, undefined, 'neutral timbre genes leave the variant alone');
  });

  test('flite genomes map the heard pitch onto int_f0_target_mean through the measured line', () => {
    const slt = builtinGenome('flite-slt');
    const spec = genomeToSpec({ ...slt, genes: { ...slt.genes, pitch_hz: 200 } });
    const model = CALIBRATION.flite.slt;
    assert.ok(model.controllable);
    assert.ok(Math.abs(model.slope * (spec.controls?.pitchHz ?? 0) + model.offset - 200) < 0.05);
    assert.equal(spec.controls?.formantScale, undefined, 'flite has no formant control');
    assert.equal(CALIBRATION.flite.rms.controllable, false, 'rms ignores the pitch target (measured)');
    const rms = genomeToSpec(builtinGenome('flite-rms'));
    assert.equal(rms.controls?.pitchHz, undefined);
  });

  test('higher pitch genes give higher pitch controls, monotonically', () => {
    let last = 0;
    for (const hz of [60, 80, 120, 180, 250, 350]) {
      const spec = genomeToSpec({ ...LOW, genes: { ...LOW.genes, pitch_hz: hz } });
      const p = spec.controls?.pitchHz ?? 0;
      assert.ok(p > last, `${hz} Hz -> ${p}`);
      last = p;
    }
  });

  test('parseGenome round-trips and refuses malformed or unknown versions', () => {
    const json = JSON.parse(JSON.stringify(genomeToJson(HIGH))) as unknown;
    assert.deepEqual(parseGenome(json), HIGH);
    assert.throws(() => parseGenome({ ...(json as object), version: 2 }), GenomeError);
    assert.throws(() => parseGenome({ ...(json as object), engine: 'festival' }), GenomeError);
    assert.throws(() => parseGenome({ ...(json as object), genes: { ...HIGH.genes, rate: 'fast' } }), GenomeError);
    const clamped = parseGenome({ ...(json as object), genes: { ...HIGH.genes, pitch_hz: 5000 } });
    assert.equal(clamped.genes.pitch_hz, GENES.pitch_hz.max);
  });

  test('gender follows the heard pitch', () => {
    assert.equal(genderOfPitch(90), 'male');
    assert.equal(genderOfPitch(150), 'neutral');
    assert.equal(genderOfPitch(210), 'female');
    assert.equal(genderOfPitch(builtinGenome('flite-slt').genes.pitch_hz), 'female');
    assert.equal(genderOfPitch(builtinGenome('flite-kal16').genes.pitch_hz), 'male');
  });
});

describe('breeding', () => {
  test('the generator is deterministic and uniform enough', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const xs = Array.from({ length: 2000 }, () => a());
    assert.deepEqual(
      xs.slice(0, 10),
      Array.from({ length: 10 }, () => b()),
    );
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    assert.ok(Math.abs(mean - 0.5) < 0.03, `mean ${mean}`);
    assert.ok(xs.every((x) => x >= 0 && x < 1));
  });

  test('with no mutation every gene lies between the parents', () => {
    for (let seed = 0; seed < 50; seed++) {
      const child = breedGenomes(LOW, HIGH, { mutationRate: 0, seed });
      for (const g of GENE_NAMES) {
        const lo = Math.min(LOW.genes[g], HIGH.genes[g]);
        const hi = Math.max(LOW.genes[g], HIGH.genes[g]);
        assert.ok(child.genes[g] >= lo - 1e-3 && child.genes[g] <= hi + 1e-3, `seed ${seed} ${g}: ${child.genes[g]} not in ${lo}..${hi}`);
      }
      assert.ok(child.base_voice === LOW.base_voice || child.base_voice === HIGH.base_voice);
    }
  });

  test('the same seed gives the same child; another seed another', () => {
    const a = breedGenomes(LOW, HIGH, { mutationRate: 0.5, seed: 1234 });
    const b = breedGenomes(LOW, HIGH, { mutationRate: 0.5, seed: 1234 });
    const c = breedGenomes(LOW, HIGH, { mutationRate: 0.5, seed: 1235 });
    assert.deepEqual(a, b);
    assert.notDeepEqual(a.genes, c.genes);
  });

  test('mutation moves genes by about sigma x rate, and stays within bounds', () => {
    const shifts: number[] = [];
    for (let seed = 0; seed < 200; seed++) {
      const calm = breedGenomes(LOW, HIGH, { mutationRate: 0, seed });
      const wild = breedGenomes(LOW, HIGH, { mutationRate: 1, seed });
      assert.equal(wild.base_voice, calm.base_voice, 'one seed, one crossover, whatever the rate');
      shifts.push(Math.abs(12 * Math.log2(wild.genes.pitch_hz / calm.genes.pitch_hz)));
      for (const g of GENE_NAMES) {
        assert.ok(wild.genes[g] >= GENES[g].min && wild.genes[g] <= GENES[g].max, `${g} out of bounds`);
      }
    }
    const mean = shifts.reduce((s, x) => s + x, 0) / shifts.length;
    // |N(0, 3 st)| has mean 2.4 st (a little less here, where clamping bites).
    assert.ok(mean > 1.6 && mean < 3.2, `mean pitch shift ${mean.toFixed(2)} st`);
  });

  test('parents of different engines and languages give a child that can speak', () => {
    const de = builtinGenome('espeak-de-female-1');
    const kal = builtinGenome('flite-kal16');
    const engines = new Set<string>();
    for (let seed = 0; seed < 20; seed++) {
      const child = breedGenomes(de, kal, { mutationRate: 0.3, seed });
      engines.add(child.engine);
      assert.ok(getBuiltinVoice(child.base_voice), 'the base voice is a real built-in voice');
      const spec = genomeToSpec(child);
      assert.equal(spec.engine, child.engine);
    }
    assert.deepEqual([...engines].sort(), ['espeak', 'flite'], 'either parent can pass on its engine');
  });

  test("a base voice that cannot move its pitch gives way to the other parent's", () => {
    const rms = builtinGenome('flite-rms');
    const slt = builtinGenome('flite-slt');
    for (let seed = 0; seed < 20; seed++) assert.equal(breedGenomes(rms, slt, { mutationRate: 0, seed }).base, 'slt');
  });

  test('argument checks', () => {
    assert.throws(() => breedGenomes(LOW, HIGH, { mutationRate: 1.5, seed: 1 }), RangeError);
    assert.throws(() => breedGenomes(LOW, HIGH, { mutationRate: Number.NaN, seed: 1 }), RangeError);
    assert.throws(() => breedGenomes(LOW, HIGH, { mutationRate: 0.1, seed: -1 }), RangeError);
    assert.throws(() => breedGenomes(LOW, HIGH, { mutationRate: 0.1, seed: 2 ** 32 }), RangeError);
  });
});

describe('clone base choice', () => {
  test('candidates are the calibrated voices of the language that can move their pitch', () => {
    const en = cloneCandidates('en-US');
    assert.ok(en.length >= 5);
    assert.ok(en.every((v) => v.language === 'en-US'));
    assert.ok(!en.some((v) => v.id === 'flite-rms'));
    assert.ok(cloneCandidates('de').every((v) => v.language.startsWith('de')));
    assert.equal(cloneCandidates('xyz').length, 0);
  });

  test('each calibrated built-in voice intelligible enough to be a base is its own nearest base', () => {
    const candidates = cloneCandidates('en-US');
    let checked = 0;
    for (const gender of ['female', 'male'] as const) {
      for (const v of intelligibleEnough(candidates.filter((c) => c.gender === gender))) {
        const natural = calibrationOf(v.id)?.natural;
        assert.ok(natural);
        assert.equal(nearestBase(natural, candidates).id, v.id);
        checked++;
      }
    }
    assert.ok(checked >= 2);
  });

  test('no English speaker gets a base more than 5 word-error points less intelligible than the best of its gender', () => {
    for (const language of ['en', 'en-US', 'en-GB']) {
      const candidates = cloneCandidates(language);
      const werOf = (id: string): number => {
        const wer = calibrationOf(id)?.wer_percent;
        assert.ok(wer !== undefined, `${id} has a measured word error rate`);
        return wer;
      };
      // Every base as the speaker: its own timbre pulls the choice towards it.
      for (const v of candidates) {
        const natural = calibrationOf(v.id)?.natural;
        assert.ok(natural);
        const chosen = nearestBase(natural, candidates, language);
        const best = Math.min(...candidates.filter((c) => c.gender === chosen.gender).map((c) => werOf(c.id)));
        assert.ok(
          werOf(chosen.id) <= best + MAX_WER_GAP_POINTS,
          `${language}: ${v.id} got ${chosen.id} (${werOf(chosen.id)} %, best ${best} %)`,
        );
      }
    }
  });
});
