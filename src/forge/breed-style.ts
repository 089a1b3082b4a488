// Breeding Kokoro voices: their genes are style vectors. A child's style is, dimension by dimension, a blend
// of its parents' styles (crossover weight drawn per dimension, then a Gaussian mutation of that weight,
// clamped to 0..1), so every dimension of every row lies between the parents' values. Formant and Piper
// voices have no style vector: breeding them with a Kokoro voice, or breeding Piper voices, is refused.
import { AppError } from '../errors.ts';
import { STYLE_DIM } from '../synth/engines/kokoro/voices-file.ts';
import { engineInfo } from '../synth/registry.ts';
import type { StyleMix, VoiceSpec } from '../synth/voice-spec.ts';
import { seededRandom } from './breed.ts';
import type { Gender, JsonValue, Voice } from '../voices/voice.ts';

export const STYLE_GENOME_VERSION = 1;

export interface StyleChild {
  spec: VoiceSpec;
  genome: JsonValue;
  gender: Gender;
  /** The parent the child takes its language and base voice from (the one weighing more). */
  dominant: Voice;
  /** The child's mean share of parent B, 0..1. */
  shareB: number;
}

function breedingOf(v: Voice): 'genome' | 'style' | 'none' {
  return engineInfo(v.engine).capabilities.breeding;
}

function bundleOf(v: Voice): string {
  return v.spec.base.slice(0, v.spec.base.indexOf('/'));
}

/** A Kokoro voice's style as a blend (a catalog voice is itself with weight 1 everywhere). */
export function styleMixOf(v: Voice): StyleMix {
  if (v.spec.style) return v.spec.style;
  return { voices: [v.spec.base.slice(v.spec.base.indexOf('/') + 1)], weights: [new Array<number>(STYLE_DIM).fill(1)] };
}

/**
 * Null when neither parent is a neural voice (the formant genome breeds them); a 400 for pairs that cannot
 * breed; otherwise the child.
 */
export function breedNeural(a: Voice, b: Voice, options: { mutationRate: number; seed: number }): StyleChild | null {
  if (breedingOf(a) === 'genome' && breedingOf(b) === 'genome') return null;
  if (breedingOf(a) !== 'style' || breedingOf(b) !== 'style') {
    const engines = `${a.engine} × ${b.engine}`;
    const why =
      breedingOf(a) === 'none' || breedingOf(b) === 'none'
        ? 'Piper voices are fixed neural models with no genes to mix'
        : 'a Kokoro voice breeds only with another Kokoro voice (style vectors), not with a formant voice';
    throw new AppError('validation', `These voices cannot be bred (${engines}): ${why}.`);
  }
  if (bundleOf(a) !== bundleOf(b)) throw new AppError('validation', 'Kokoro voices of different model files cannot be bred');
  const random = seededRandom(options.seed);
  const gaussian = (): number => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const ma = styleMixOf(a);
  const mb = styleMixOf(b);
  const voices = [...new Set([...ma.voices, ...mb.voices])];
  const weights = voices.map(() => new Array<number>(STYLE_DIM).fill(0));
  let shareB = 0;
  for (let i = 0; i < STYLE_DIM; i++) {
    const t = Math.min(1, Math.max(0, 0.25 + 0.5 * random() + 0.25 * options.mutationRate * gaussian()));
    shareB += t / STYLE_DIM;
    ma.voices.forEach((name, k) => (weights[voices.indexOf(name)][i] += (1 - t) * ma.weights[k][i]));
    mb.voices.forEach((name, k) => (weights[voices.indexOf(name)][i] += t * mb.weights[k][i]));
  }
  const dominant = shareB > 0.5 ? b : a;
  const style: StyleMix = { voices, weights };
  const spec: VoiceSpec = { engine: dominant.engine, base: dominant.spec.base, style };
  const genome: JsonValue = {
    version: STYLE_GENOME_VERSION,
    engine: dominant.engine,
    base: dominant.spec.base,
    style: { voices, weights },
  };
  const gender: Gender = a.gender === b.gender ? a.gender : dominant.gender;
  return { spec, genome, gender, dominant, shareB };
}
