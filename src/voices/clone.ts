// Cloning: pick the built-in voice nearest to a measured speaker, then fit the continuous genes by
// analysis by synthesis (render the fit text, measure, adjust) until the clone measures like the sample.
import type { Synthesizer } from '../synth/synthesizer.ts';
import { BUILTIN_VOICES } from './builtin.ts';
import { calibrationOf } from './calibration.ts';
import { matchesLanguage } from './filter.ts';
import { fitTextFor } from './fit-text.ts';
import type { SpeechAnalyzer } from './forge-pool.ts';
import { clampGenes, genomeOfBuiltin, genomeToSpec, pitchIsControllable, type VoiceGenome } from './genome.ts';
import { renderPcm, RENDER_RATE } from './render.ts';
import { semitones, type SpeakerFeatures } from './speaker-features.ts';
import type { Voice } from './voice.ts';

/** Built-in voices that can be the base of a clone in `language`: calibrated, and able to move their pitch. */
export function cloneCandidates(language: string): Voice[] {
  return BUILTIN_VOICES.filter((v) => {
    if (!matchesLanguage(v.language, language) || !calibrationOf(v.id)) return false;
    return pitchIsControllable({ engine: v.engine, base: v.spec.base });
  });
}

/**
 * How far a base voice is from the speaker. Pitch counts (every semitone the fit has to move the voice
 * costs naturalness), timbre counts most (it is the one thing the fit does not change): the long-term
 * spectrum's centre, slope and noisiness over 0-4 kHz. Rate counts a little.
 */
export function speakerDistance(target: SpeakerFeatures, base: SpeakerFeatures): number {
  const pitch = semitones(target.pitch_hz, base.pitch_hz) / 5;
  const centroid = Math.log2(base.spectral_centroid_hz / target.spectral_centroid_hz) / 0.25;
  const tilt = (base.spectral_tilt_db_per_octave - target.spectral_tilt_db_per_octave) / 2;
  const flatness = Math.log2(Math.max(1e-4, base.spectral_flatness) / Math.max(1e-4, target.spectral_flatness)) / 2;
  const rate = Math.log2(base.syllables_per_second / target.syllables_per_second) / 1;
  return Math.sqrt(pitch * pitch + centroid * centroid + tilt * tilt + flatness * flatness + rate * rate);
}

export function nearestBase(target: SpeakerFeatures, candidates: readonly Voice[]): Voice {
  let best: Voice | undefined;
  let bestDistance = Infinity;
  for (const v of candidates) {
    const natural = calibrationOf(v.id)?.natural;
    if (!natural) continue;
    const d = speakerDistance(target, natural);
    // Ties keep catalog order, which puts the most natural voices first.
    if (d < bestDistance) {
      best = v;
      bestDistance = d;
    }
  }
  if (!best) throw new RangeError('no candidate base voice');
  return best;
}

export interface FitStep {
  genes: VoiceGenome['genes'];
  measured: SpeakerFeatures;
  /** Semitones from the sample's median pitch. */
  pitch_error_st: number;
  /** Relative error of the syllable rate (0.05 = 5 % too fast). */
  rate_error: number;
  range_error_st: number;
}

export interface CloneFit {
  genome: VoiceGenome;
  /** The clone measured on the fit text (the best step). */
  measured: SpeakerFeatures;
  steps: FitStep[];
}

export interface FitOptions {
  /** Renders at most; each is one fit text (about 11 s of speech). Default 4. */
  maxRenders?: number;
  signal?: AbortSignal;
}

// Good enough to stop early: below what a listener tells apart, and well inside the measurement noise.
const PITCH_TOLERANCE_ST = 0.35;
const RATE_TOLERANCE = 0.03;
const RANGE_TOLERANCE_ST = 1;
/** d log(measured syllable rate) / d log(rate control): the syllable counter under-counts fast speech. */
const DEFAULT_RATE_ELASTICITY = 0.65;

function score(step: FitStep, rangeMatters: boolean): number {
  const range = rangeMatters ? Math.abs(step.range_error_st) / 3 : 0;
  return Math.abs(step.pitch_error_st) / 0.5 + Math.abs(Math.log(1 + step.rate_error)) / Math.log(1.05) + range;
}

/**
 * Fits the genes of a clone of `target` built on `base`. The first guess already aims at the sample
 * (its pitch and spread as genes, the rate scaled by the ratio of syllable rates); each further render
 * corrects the pitch multiplicatively, the spread additively and the rate along the measured
 * rate-response of the voice. The best render wins, not the last.
 */
export async function fitClone(
  synth: Synthesizer,
  analyzer: SpeechAnalyzer,
  target: SpeakerFeatures,
  base: Voice,
  options: FitOptions = {},
): Promise<CloneFit> {
  const maxRenders = Math.max(1, options.maxRenders ?? 4);
  const natural = calibrationOf(base.id)?.natural;
  const text = fitTextFor(base.language);
  const start = genomeOfBuiltin(base);
  const rangeMatters = base.engine === 'espeak';
  let genes = clampGenes({
    ...start.genes,
    pitch_hz: target.pitch_hz,
    pitch_range_st: rangeMatters ? target.pitch_range_st : start.genes.pitch_range_st,
    rate: natural && natural.syllables_per_second > 0 ? target.syllables_per_second / natural.syllables_per_second : 1,
  });
  const steps: FitStep[] = [];
  let best: FitStep | undefined;
  for (let i = 0; i < maxRenders; i++) {
    const genome: VoiceGenome = { ...start, genes };
    const pcm = await renderPcm(synth, genomeToSpec(genome), text, options.signal);
    const measured = await analyzer.measurePcm(pcm, RENDER_RATE);
    if (!measured || measured.pitch_hz === 0 || measured.syllables_per_second === 0) {
      throw new Error(`the fit render of ${base.id} could not be measured`);
    }
    const step: FitStep = {
      genes,
      measured,
      pitch_error_st: semitones(target.pitch_hz, measured.pitch_hz),
      rate_error: measured.syllables_per_second / target.syllables_per_second - 1,
      range_error_st: measured.pitch_range_st - target.pitch_range_st,
    };
    steps.push(step);
    if (!best || score(step, rangeMatters) < score(best, rangeMatters)) best = step;
    const done =
      Math.abs(step.pitch_error_st) < PITCH_TOLERANCE_ST &&
      Math.abs(step.rate_error) < RATE_TOLERANCE &&
      (!rangeMatters || Math.abs(step.range_error_st) < RANGE_TOLERANCE_ST);
    if (done) break;

    const prev = steps.length > 1 ? steps[steps.length - 2] : undefined;
    let elasticity = DEFAULT_RATE_ELASTICITY;
    if (prev && Math.abs(Math.log(genes.rate / prev.genes.rate)) > 0.01) {
      const e = Math.log(measured.syllables_per_second / prev.measured.syllables_per_second) / Math.log(genes.rate / prev.genes.rate);
      if (Number.isFinite(e)) elasticity = Math.min(1.2, Math.max(0.3, e));
    }
    genes = clampGenes({
      ...genes,
      pitch_hz: genes.pitch_hz * (target.pitch_hz / measured.pitch_hz),
      pitch_range_st: rangeMatters ? genes.pitch_range_st - 0.8 * step.range_error_st : genes.pitch_range_st,
      rate: genes.rate * (target.syllables_per_second / measured.syllables_per_second) ** (1 / elasticity),
    });
  }
  const chosen = best as FitStep;
  return { genome: { ...start, genes: chosen.genes }, measured: chosen.measured, steps };
}
