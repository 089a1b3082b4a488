// Breeding: a child genome from two parents, reproducible from its seed.
import { MAX_SEED } from '../schemas/forge.ts';
import { clampGene, GENE_NAMES, GENES, GENOME_VERSION, pitchIsControllable, type Genes, type VoiceGenome } from './genome.ts';

export { MAX_SEED };

/** mulberry32: a small, well-mixed 32-bit generator; the same seed gives the same stream on every platform. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal draw (Box-Muller) from a uniform source. */
function gaussian(random: () => number): number {
  const u = 1 - random(); // (0, 1]: log(0) is never taken
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export interface BreedOptions {
  /** 0..1: scales the standard deviation of each gene's Gaussian mutation. */
  mutationRate: number;
  seed: number;
}

/** How much of parent B each continuous gene takes: the blend weight is drawn from this range. */
const BLEND_MIN = 0.25;
const BLEND_MAX = 0.75;

/**
 * Crossover and mutation:
 * - the categorical genes (engine, base voice, variant: one unit, since they only make sense together)
 *   come from one parent, chosen by a seeded coin; a base voice that cannot move its pitch (flite's rms)
 *   gives way to the other parent's, so that the child can sound its blended pitch. The child therefore
 *   speaks that parent's language and accent: parents of different languages or engines are allowed.
 * - each continuous gene is a weighted blend of the parents' (weight drawn from 0.25..0.75; on a log
 *   scale for pitch and rate), so with no mutation every gene lies between the parents'.
 * - each gene then moves by a Gaussian step of standard deviation mutationRate x its sigma and is
 *   clamped to its bounds.
 * The random stream is consumed the same way whatever the rate, so one seed gives the same crossover at
 * every mutation rate, and the same seed and rate give the same child.
 */
export function breedGenomes(a: VoiceGenome, b: VoiceGenome, options: BreedOptions): VoiceGenome {
  const { mutationRate, seed } = options;
  if (!(mutationRate >= 0 && mutationRate <= 1)) throw new RangeError('mutationRate must be within 0..1');
  if (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED) throw new RangeError('seed must be an integer within 0..2^32-1');
  const random = seededRandom(seed);

  let from = random() < 0.5 ? a : b;
  const other = from === a ? b : a;
  if (!pitchIsControllable(from) && pitchIsControllable(other)) from = other;

  const genes = {} as Genes;
  for (const name of GENE_NAMES) {
    const info = GENES[name];
    const w = BLEND_MIN + (BLEND_MAX - BLEND_MIN) * random();
    const z = gaussian(random);
    const x = a.genes[name];
    const y = b.genes[name];
    const step = mutationRate * info.sigma * z;
    const value = info.log ? 2 ** ((1 - w) * Math.log2(x) + w * Math.log2(y) + step) : (1 - w) * x + w * y + step;
    genes[name] = clampGene(name, value);
  }

  const child: VoiceGenome = { version: GENOME_VERSION, engine: from.engine, base: from.base, base_voice: from.base_voice, genes };
  if (from.variant !== undefined) child.variant = from.variant;
  return child;
}
