// The voice genome: what makes an owned voice, stored as versioned JSON with it.
//
// Categorical genes: the engine and base voice (and espeak variant), always taken together from one
// built-in voice, `base_voice`. Continuous genes: in units a listener hears rather than in any engine's
// controls, so that voices of different engines can be blended: the heard median pitch in Hz, the spread
// of the intonation in semitones, the speaking rate as a multiple of the base voice's own, and espeak's
// timbre controls. genomeToSpec() maps them onto each engine's native controls through the measured
// calibration of the base voice; it is a pure function, so the same genome always renders the same voice.
import type { EngineId, VoiceControls, VoiceSpec } from '../synth/voice-spec.ts';
import { CALIBRATION, calibrationOf, interpolate } from '../synth/engines/calibration.ts';
import { engineInfo, isEngineId } from '../synth/registry.ts';
import type { Gender, JsonValue, Voice } from '../voices/voice.ts';

export const GENOME_VERSION = 1;

export interface Genes {
  /** Heard median pitch, Hz. */
  pitch_hz: number;
  /** Heard intonation spread, semitones from the 10th to the 90th percentile of f0 (espeak only). */
  pitch_range_st: number;
  /** Speaking rate, a multiple of the base voice's normal rate. */
  rate: number;
  /** Formant frequencies in percent of the base voice's (espeak only): the size of the vocal tract. */
  formant_scale: number;
  /** Breathiness 0..100, added to the base voice's own (espeak only). */
  breath: number;
  /** Pitch flutter 0..100 (espeak only). */
  flutter: number;
  /** Roughness (creak) 0..100 (espeak only). */
  roughness: number;
}

export type GeneName = keyof Genes;

export interface VoiceGenome {
  version: typeof GENOME_VERSION;
  engine: EngineId;
  /** VoiceSpec.base of the base voice. */
  base: string;
  /** espeak: VoiceSpec.variant of the base voice, which supplies its formant shaping. */
  variant?: string;
  /** The built-in voice the categorical genes come from; its calibration maps the genes. */
  base_voice: string;
  genes: Genes;
}

export interface GeneInfo {
  min: number;
  max: number;
  /** Blending and mutation work on the logarithm of log-scaled genes (pitch and rate are heard as ratios). */
  log: boolean;
  /** Standard deviation of a mutation at mutation_rate 1 (in log2 units for log-scaled genes). */
  sigma: number;
  /**
   * The engine control that renders it: engines without it carry the gene along unheard, so that a later child
   * can inherit it.
   */
  control: keyof VoiceControls;
}

export const GENES: Readonly<Record<GeneName, GeneInfo>> = {
  // 3 semitones; 0.15 octaves of rate is about +-11 %.
  pitch_hz: { min: 55, max: 400, log: true, sigma: 3 / 12, control: 'pitchHz' },
  pitch_range_st: { min: 0.3, max: 14, log: false, sigma: 2, control: 'pitchRangeHz' },
  rate: { min: 0.5, max: 2.2, log: true, sigma: 0.15, control: 'rate' },
  formant_scale: { min: 75, max: 135, log: false, sigma: 8, control: 'formantScale' },
  breath: { min: 0, max: 80, log: false, sigma: 12, control: 'breath' },
  flutter: { min: 0, max: 60, log: false, sigma: 8, control: 'flutter' },
  roughness: { min: 0, max: 60, log: false, sigma: 8, control: 'roughness' },
};

/** Whether the engine breeds through this genome at all. */
export function breedsByGenome(engine: EngineId): boolean {
  return engineInfo(engine).capabilities.breeding === 'genome';
}

/** Whether voices of the engine render the gene (the others carry it unheard). */
export function geneIsHeard(name: GeneName, engine: EngineId): boolean {
  return engineInfo(engine).capabilities.controls.includes(GENES[name].control);
}

export const GENE_NAMES = Object.keys(GENES) as GeneName[];

export function clampGene(name: GeneName, value: number): number {
  const { min, max } = GENES[name];
  if (!Number.isFinite(value)) throw new RangeError(`gene ${name} is not a finite number`);
  // Rounded: the genome is stored as JSON and compared by value.
  return Math.round(Math.min(max, Math.max(min, value)) * 1000) / 1000;
}

export function clampGenes(genes: Genes): Genes {
  const out = {} as Genes;
  for (const name of GENE_NAMES) out[name] = clampGene(name, genes[name]);
  return out;
}

// Heard pitch of the voices: men mostly speak below 145 Hz, women above 165 Hz.
const MALE_BELOW_HZ = 145;
const FEMALE_FROM_HZ = 160;

/** The gender a listener most likely hears at this median pitch. */
export function genderOfPitch(pitchHz: number): Gender {
  if (pitchHz < MALE_BELOW_HZ) return 'male';
  if (pitchHz >= FEMALE_FROM_HZ) return 'female';
  return 'neutral';
}

/** Whether the base voice can move its pitch at all (flite's rms ignores the pitch target). */
export function pitchIsControllable(genome: Pick<VoiceGenome, 'engine' | 'base'>): boolean {
  return engineInfo(genome.engine).pitch?.controllable(genome.base) ?? true;
}

const DEFAULT_ESPEAK_PITCH_LINE: [number, number] = [82, 118];

/** The genome of a built-in voice: its own categorical genes, and the genes it was measured to have. */
export function genomeOfBuiltin(voice: Voice): VoiceGenome {
  if (voice.source !== 'builtin') throw new Error(`${voice.id} is not a built-in voice`);
  const natural = calibrationOf(voice.id)?.natural;
  const genome: VoiceGenome = {
    version: GENOME_VERSION,
    engine: voice.spec.engine,
    base: voice.spec.base,
    base_voice: voice.id,
    genes: clampGenes({
      pitch_hz: natural?.pitch_hz ?? (voice.gender === 'female' ? 200 : 110),
      pitch_range_st: natural?.pitch_range_st ?? 4,
      rate: 1,
      formant_scale: 100,
      breath: 0,
      flutter: 0,
      roughness: 0,
    }),
  };
  if (voice.spec.variant !== undefined) genome.variant = voice.spec.variant;
  return genome;
}

const round2 = (x: number): number => Math.round(x * 100) / 100;

/**
 * An engine with an intonation-range control (espeak): the pitch line whose heard median and spread are the
 * genes', through the base voice's calibration and espeak's measured pitch model.
 */
function pitchLine(genome: VoiceGenome): { pitchHz: number; pitchRangeHz: number } {
  const model = CALIBRATION.espeak;
  const cal = calibrationOf(genome.base_voice);
  const [b0, top0] = cal?.pitch_line ?? DEFAULT_ESPEAK_PITCH_LINE;
  const rho0 = (top0 - b0) / b0;
  // The shared model, scaled so that the base voice's own genes give back exactly its own pitch line.
  const m0 = interpolate(model.rho, model.median, rho0);
  const s0 = interpolate(model.rho, model.range_st, rho0);
  const natural = cal?.natural;
  const medianScale = natural && natural.pitch_hz > 0 ? natural.pitch_hz / (b0 * m0) : 1;
  const rangeScale = natural && natural.pitch_range_st > 0 && s0 > 0 ? Math.min(4, Math.max(0.25, natural.pitch_range_st / s0)) : 1;
  const rhoMax = model.rho[model.rho.length - 1];
  const rho = Math.min(rhoMax, Math.max(0, interpolate(model.range_st, model.rho, genome.genes.pitch_range_st / rangeScale)));
  const base = genome.genes.pitch_hz / (medianScale * interpolate(model.rho, model.median, rho));
  return { pitchHz: round2(base), pitchRangeHz: round2(rho * base) };
}

/** What the engine renders for this genome. */
export function genomeToSpec(genome: VoiceGenome): VoiceSpec {
  const g = genome.genes;
  const controls: VoiceControls = { rate: g.rate };
  const heard = (name: GeneName): boolean => geneIsHeard(name, genome.engine);
  if (heard('pitch_range_st')) Object.assign(controls, pitchLine(genome));
  else if (heard('pitch_hz') && pitchIsControllable(genome)) {
    const pitch = engineInfo(genome.engine).pitch;
    controls.pitchHz = round2(pitch ? pitch.controlFor(genome.base, g.pitch_hz) : g.pitch_hz);
  }
  // Left out at their neutral values, so that the base variant keeps its own breath, flutter and creak.
  if (heard('formant_scale') && g.formant_scale !== 100) controls.formantScale = g.formant_scale;
  if (heard('breath') && g.breath > 0) controls.breath = g.breath;
  if (heard('flutter') && g.flutter > 0) controls.flutter = g.flutter;
  if (heard('roughness') && g.roughness > 0) controls.roughness = g.roughness;
  const spec: VoiceSpec = { engine: genome.engine, base: genome.base, controls };
  if (genome.variant !== undefined) spec.variant = genome.variant;
  return spec;
}

export class GenomeError extends Error {
  override readonly name = 'GenomeError';
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads a stored genome, checking its version and every gene. */
export function parseGenome(raw: unknown): VoiceGenome {
  if (!isRecord(raw)) throw new GenomeError('genome must be an object');
  if (raw.version !== GENOME_VERSION) throw new GenomeError(`unsupported genome version ${String(raw.version)}`);
  if (typeof raw.engine !== 'string' || !isEngineId(raw.engine) || !breedsByGenome(raw.engine)) {
    throw new GenomeError(`unknown engine ${String(raw.engine)}`);
  }
  if (typeof raw.base !== 'string' || raw.base === '') throw new GenomeError('base must be a string');
  if (typeof raw.base_voice !== 'string' || raw.base_voice === '') throw new GenomeError('base_voice must be a string');
  if (raw.variant !== undefined && typeof raw.variant !== 'string') throw new GenomeError('variant must be a string');
  if (!isRecord(raw.genes)) throw new GenomeError('genes must be an object');
  const genes = {} as Genes;
  for (const name of GENE_NAMES) {
    const v = raw.genes[name];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new GenomeError(`gene ${name} must be a number`);
    genes[name] = clampGene(name, v);
  }
  const genome: VoiceGenome = { version: GENOME_VERSION, engine: raw.engine, base: raw.base, base_voice: raw.base_voice, genes };
  if (typeof raw.variant === 'string') genome.variant = raw.variant;
  return genome;
}

export function genomeToJson(genome: VoiceGenome): JsonValue {
  const out: { [key: string]: JsonValue } = {
    version: genome.version,
    engine: genome.engine,
    base: genome.base,
    base_voice: genome.base_voice,
    genes: { ...genome.genes },
  };
  if (genome.variant !== undefined) out.variant = genome.variant;
  return out;
}
