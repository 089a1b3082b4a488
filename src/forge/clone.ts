// Cloning: pick the built-in voice nearest to a measured speaker, then fit the continuous genes by
// analysis by synthesis (render the fit text, measure, adjust) until the clone measures like the sample.
import { RENDER_RATE } from '../synth/render-pcm.ts';
import type { VoiceSpec } from '../synth/voice-spec.ts';
import { BUILTIN_VOICES } from '../voices/builtin.ts';
import { calibrationOf } from '../synth/engines/calibration.ts';
import { matchesLanguage } from '../voices/filter.ts';
import { fitTextFor, heldOutTextFor } from './fit-text.ts';
import type { SpeechAnalyzer } from './forge-pool.ts';
import { clampGenes, geneIsHeard, genomeOfBuiltin, genomeToSpec, pitchIsControllable, type VoiceGenome } from './genome.ts';
import { perceivedGender, semitones, type SpeakerFeatures } from './speaker-features.ts';
import type { Voice } from '../voices/voice.ts';

/** Built-in voices that can be the base of a clone in `language`: calibrated, and able to move their pitch. */
export function cloneCandidates(language: string): Voice[] {
  return BUILTIN_VOICES.filter((v) => {
    if (!matchesLanguage(v.language, language) || !calibrationOf(v.id)) return false;
    return pitchIsControllable({ engine: v.engine, base: v.spec.base });
  });
}

/**
 * How far a base voice is from the speaker. Pitch counts (every semitone the fit has to move the voice
 * costs naturalness), timbre counts most (it is the one thing the fit does not change): the formant
 * spacing (vocal tract length) and the long-term spectrum's centre, slope and noisiness over 0-4 kHz.
 * Rate counts a little.
 */
export function speakerDistance(target: SpeakerFeatures, base: SpeakerFeatures): number {
  const pitch = semitones(target.pitch_hz, base.pitch_hz) / 5;
  const tract =
    target.formant_spacing_hz > 0 && base.formant_spacing_hz > 0
      ? Math.log2(base.formant_spacing_hz / target.formant_spacing_hz) / 0.15
      : 0;
  const centroid = Math.log2(base.spectral_centroid_hz / target.spectral_centroid_hz) / 0.25;
  const tilt = (base.spectral_tilt_db_per_octave - target.spectral_tilt_db_per_octave) / 2;
  const flatness = Math.log2(Math.max(1e-4, base.spectral_flatness) / Math.max(1e-4, target.spectral_flatness)) / 2;
  const rate = Math.log2(articulationRate(base) / articulationRate(target)) / 1;
  return Math.sqrt(pitch * pitch + tract * tract + centroid * centroid + tilt * tilt + flatness * flatness + rate * rate);
}

// What sets speech apart from other sound, measured on the sample (SpeakerFeatures). Conservative: readers,
// espeak, flite and festival measure a pitch range of 2-9 semitones, a spectral flatness under 0.15 and
// 3.5-5.5 syllables per second; a steady tone has 0 semitones and under 1 syllable per second, white
// noise a flatness near 0.45 and no voiced frame.
/** Share of the sounding frames that must be voiced (noise and clicks have next to none). */
const MIN_VOICED_FRACTION = 0.1;
/** Above this the long-term spectrum is noise-like (white noise ~0.45, clean speech up to ~0.15). */
const MAX_SPECTRAL_FLATNESS = 0.3;
/** Intonation spread (10th-90th percentile) below this is a held tone, not a sentence. */
const MIN_PITCH_RANGE_ST = 0.5;
/** Speech has 2-8 syllable-like energy modulations per second; a steady sound measures under 1. */
const MIN_SYLLABLES_PER_SECOND = 1.5;
/**
 * Speech's loudness spreads 18-24 dB (still 4-7 dB under as much white noise as speech); a synthetic tone's
 * stays within 1 dB, however its pitch moves.
 */
const MIN_LOUDNESS_RANGE_DB = 2;
/**
 * Music and singing (src/audio/analysis/music.ts). Held notes: speech 0-0.36 of its voiced time (flite's flat HTS
 * voice highest), a sung melody, a piano arpeggio and a band's chords 0.77-1. A steady beat: speech 0.03-0.1, drum
 * loops and songs 0.5-0.96.
 */
const MAX_HELD_NOTE_SHARE = 0.6;
const MAX_BEAT_REGULARITY = 0.35;

/** Why a sample is not speech, in words for the client; undefined when it passes every check. */
export function notSpeechReason(f: SpeakerFeatures): string | undefined {
  const voiced = f.pitch_hz > 0 && f.voiced_fraction >= MIN_VOICED_FRACTION;
  // A flat spectrum alone does not refuse: speech under as much noise (0 dB SNR) measures 0.34 and is
  // still voiced. Without a voice, it tells the client what the recording holds instead.
  if (!voiced && f.spectral_flatness > MAX_SPECTRAL_FLATNESS) {
    return `The recording sounds like noise, not speech: its spectrum is flat (spectral flatness ${f.spectral_flatness.toFixed(2)}, speech stays under ${MAX_SPECTRAL_FLATNESS}) and nothing in it is voiced`;
  }
  if (!voiced) {
    return `The recording has no voiced sound (${Math.round(f.voiced_fraction * 100)} % of it is voiced; speech needs at least ${MIN_VOICED_FRACTION * 100} %)`;
  }
  if (f.pitch_range_st < MIN_PITCH_RANGE_ST) {
    return `The recording is a steady tone, not speech: its pitch stays at ${Math.round(f.pitch_hz)} Hz (it moves ${f.pitch_range_st.toFixed(1)} semitones; speech moves by several)`;
  }
  if (f.syllables_per_second < MIN_SYLLABLES_PER_SECOND) {
    return `The recording has no syllable rhythm: its loudness changes ${f.syllables_per_second.toFixed(1)} times per second, speech 2 to 8 times`;
  }
  // A tone whose pitch sweeps far and fast moves its harmonics through the band the syllables are counted in,
  // which reads as a rhythm there; its overall loudness still never changes, and speech's always does.
  if (f.loudness_range_db !== undefined && f.loudness_range_db < MIN_LOUDNESS_RANGE_DB) {
    return `The recording's loudness never rises and falls as syllables do: it stays within ${f.loudness_range_db.toFixed(1)} dB (speech spreads over ${MIN_LOUDNESS_RANGE_DB} dB and more), so it sounds like a synthetic tone, not speech`;
  }
  if (f.held_note_share !== undefined && f.held_note_share > MAX_HELD_NOTE_SHARE) {
    return `The recording sounds like singing or music, not speech: its pitch holds steady notes for ${Math.round(f.held_note_share * 100)} % of its voiced time (speech glides, and holds a pitch for at most about a third of it)`;
  }
  if (f.beat_regularity !== undefined && f.beat_regularity > MAX_BEAT_REGULARITY) {
    return `The recording sounds like music, not speech: its sounds start on a steady beat (regularity ${f.beat_regularity.toFixed(2)}; speech stays under ${MAX_BEAT_REGULARITY})`;
  }
  return undefined;
}

/** The accent a language tag without a region is taken to mean when choosing a base. */
const USUAL_REGION: Readonly<Record<string, string>> = { en: 'en-us' };
/** Added to the distance of a base with another accent than the usual one: a strong timbre match still wins. */
const OTHER_ACCENT_PENALTY = 1.5;

/** A base may be this many points of word error rate less intelligible than the best of its pool, no more. */
export const MAX_WER_GAP_POINTS = 5;

/**
 * The candidates a clone may be built on, of those in `pool`: none whose measured word error rate is more
 * than MAX_WER_GAP_POINTS over the best of the pool (however close its timbre, a voice listeners cannot make
 * out is no clone). Voices without a measured rate (languages without a recognizer) all stay.
 */
export function intelligibleEnough(pool: readonly Voice[]): Voice[] {
  let best = Infinity;
  for (const v of pool) best = Math.min(best, calibrationOf(v.id)?.wer_percent ?? Infinity);
  if (!Number.isFinite(best)) return [...pool];
  return pool.filter((v) => {
    const wer = calibrationOf(v.id)?.wer_percent;
    return wer === undefined || wer <= best + MAX_WER_GAP_POINTS;
  });
}

/**
 * The candidate nearest to the speaker among those of the gender a listener hears in the sample (pitch
 * and formants, see perceivedGender), so a low-pitched woman does not get a male base nor the reverse, and
 * among those, only the intelligible enough. `language` is the tag the caller gave: without a region, its
 * usual accent is preferred.
 */
export function nearestBase(target: SpeakerFeatures, candidates: readonly Voice[], language = ''): Voice {
  const gender = perceivedGender(target);
  const sameGender = candidates.filter((v) => v.gender === gender);
  const pool = intelligibleEnough(sameGender.length > 0 ? sameGender : candidates);
  const wanted = language.toLowerCase();
  const usual = wanted.includes('-') ? undefined : USUAL_REGION[wanted];
  let best: Voice | undefined;
  let bestDistance = Infinity;
  for (const v of pool) {
    const natural = calibrationOf(v.id)?.natural;
    if (!natural) continue;
    const accent = usual && v.language.toLowerCase() !== usual ? OTHER_ACCENT_PENALTY : 0;
    const d = speakerDistance(target, natural) + accent;
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
  /** Relative error of the speaking rate (0.05 = 5 % too fast). */
  rate_error: number;
  range_error_st: number;
}

/** How the clone compares with its speaker: pitch on a text neither the sample nor the fit contained. */
export interface HeldOutFit {
  /** Semitones from the sample's median pitch on the held-out text (positive: the clone is higher). */
  pitch_semitones: number;
  /**
   * The clone's pace against the speaker's, percent (positive: the clone is faster), on the same words: with a
   * transcript, the sample's own words read by the clone (the speaker's sounding seconds over the clone's,
   * the measure the pace checks use); without one, the articulation rates of the sample and the fit render.
   */
  rate_percent: number;
  held_out: true;
}

export interface CloneFit {
  genome: VoiceGenome;
  /** The clone measured on the fit text (the best step). */
  measured: SpeakerFeatures;
  steps: FitStep[];
  /**
   * How the rate was matched: the same words' speaking time (a transcript came with the sample) or the
   * articulation rate ('rhythm': the syllabic rhythm with the pauses cut out).
   */
  rate_measure: 'transcript' | 'rhythm';
  held_out: HeldOutFit;
}

export interface FitOptions {
  /** Renders at most; each is one fit text (about 11 s of speech). Default 4. */
  maxRenders?: number;
  /** What the sample says: the fit then reads these words and matches their duration, not a rate estimate. */
  transcript?: string;
}

/** Speaks `text` with `voice` as mono float32 samples at RENDER_RATE (each render waits its turn for a worker). */
export type FitRender = (voice: VoiceSpec, text: string) => Promise<Float32Array>;

// Good enough to stop early: below what a listener tells apart, and well inside the measurement noise.
const PITCH_TOLERANCE_ST = 0.35;
const RATE_TOLERANCE = 0.03;
const RANGE_TOLERANCE_ST = 1;
/** d log(measured rate) / d log(rate control) before two renders have measured it: the rhythm measure lags a little. */
const RHYTHM_RATE_ELASTICITY = 0.8;
/** A text's duration follows the rate control closely. */
const DURATION_RATE_ELASTICITY = 1;

function score(step: FitStep, rangeMatters: boolean): number {
  const range = rangeMatters ? Math.abs(step.range_error_st) / 3 : 0;
  return Math.abs(step.pitch_error_st) / 0.5 + Math.abs(Math.log(1 + step.rate_error)) / Math.log(1.05) + range;
}

/**
 * Fits the genes of a clone of `target` built on `base`. The first guess already aims at the sample
 * (its pitch and spread as genes, the rate scaled by the ratio of articulation rates); each further render
 * corrects the pitch multiplicatively, the spread additively and the rate along the measured
 * rate-response of the voice. The best render wins, not the last.
 *
 * The rate follows how fast the speaker articulates, not how much they pause: pauses are left out of every
 * measure it is fitted on, so a sample read with a stop at every comma does not make a clone that drags on
 * sentences without one (the pipeline's pauses between sentences already follow the rate). With a transcript
 * the fit reads the sample's own words, and the rate is matched on their speaking time: the same syllables
 * take the same time whatever the voice type, which no rate estimate from audio alone achieves. Without one it
 * reads the fit text and matches the articulation rate, the syllabic rhythm of the speech with its pauses cut
 * out. Either way one more render, of a held-out text, reports how well the fit carries over to new words.
 */
export async function fitClone(
  render: FitRender,
  analyzer: SpeechAnalyzer,
  target: SpeakerFeatures,
  base: Voice,
  options: FitOptions = {},
): Promise<CloneFit> {
  const maxRenders = Math.max(1, options.maxRenders ?? 4);
  const natural = calibrationOf(base.id)?.natural;
  const transcript = options.transcript?.trim() || undefined;
  const text = transcript ?? fitTextFor(base.language);
  // Higher is faster either way: syllables per second of speaking time, or the inverse of the time the same
  // words take to say.
  const rateOf = (f: SpeakerFeatures): number => (transcript ? 1 / f.sounding_seconds : articulationRate(f));
  const targetRate = rateOf(target);
  const start = genomeOfBuiltin(base);
  const rangeMatters = geneIsHeard('pitch_range_st', base.engine);
  let genes = clampGenes({
    ...start.genes,
    pitch_hz: target.pitch_hz,
    pitch_range_st: rangeMatters ? target.pitch_range_st : start.genes.pitch_range_st,
    rate: natural && articulationRate(natural) > 0 ? articulationRate(target) / articulationRate(natural) : 1,
  });
  const steps: FitStep[] = [];
  let best: FitStep | undefined;
  for (let i = 0; i < maxRenders; i++) {
    const genome: VoiceGenome = { ...start, genes };
    const pcm = await render(genomeToSpec(genome), text);
    const measured = await analyzer.measurePcm(pcm, RENDER_RATE);
    if (!measured || measured.pitch_hz === 0 || articulationRate(measured) === 0 || measured.sounding_seconds === 0) {
      throw new Error(`the fit render of ${base.id} could not be measured`);
    }
    const step: FitStep = {
      genes,
      measured,
      pitch_error_st: semitones(target.pitch_hz, measured.pitch_hz),
      rate_error: rateOf(measured) / targetRate - 1,
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
    let elasticity = transcript ? DURATION_RATE_ELASTICITY : RHYTHM_RATE_ELASTICITY;
    if (prev && Math.abs(Math.log(genes.rate / prev.genes.rate)) > 0.01) {
      const e = Math.log(rateOf(measured) / rateOf(prev.measured)) / Math.log(genes.rate / prev.genes.rate);
      if (Number.isFinite(e)) elasticity = Math.min(1.2, Math.max(0.3, e));
    }
    genes = clampGenes({
      ...genes,
      pitch_hz: genes.pitch_hz * (target.pitch_hz / measured.pitch_hz),
      pitch_range_st: rangeMatters ? genes.pitch_range_st - 0.8 * step.range_error_st : genes.pitch_range_st,
      rate: genes.rate * (targetRate / rateOf(measured)) ** (1 / elasticity),
    });
  }
  const chosen = best as FitStep;
  const genome: VoiceGenome = { ...start, genes: chosen.genes };
  const pitch = await measureHeldOutPitch(render, analyzer, target, genome, base.language);
  // The pace is what the fit measured on its chosen render, not the held-out render's: a pace compares the same
  // words, and the held-out text's syllables differ from the sample's (its articulation rate read 5 to 16 %
  // slow for clones that keep their speaker's pace within 5 % on the same words).
  const heldOut: HeldOutFit = { pitch_semitones: pitch, rate_percent: round(chosen.rate_error * 100, 1), held_out: true };
  return { genome, measured: chosen.measured, steps, rate_measure: transcript ? 'transcript' : 'rhythm', held_out: heldOut };
}

const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** Syllables per second with the pauses left out; a measurement older than that measure has only the overall rate. */
export function articulationRate(f: SpeakerFeatures): number {
  return f.articulation_rate ?? f.syllables_per_second;
}

/** Renders the held-out text with the fitted genes: semitones from the sample's median pitch. */
async function measureHeldOutPitch(
  render: FitRender,
  analyzer: SpeechAnalyzer,
  target: SpeakerFeatures,
  genome: VoiceGenome,
  language: string,
): Promise<number> {
  const pcm = await render(genomeToSpec(genome), heldOutTextFor(language));
  const m = await analyzer.measurePcm(pcm, RENDER_RATE);
  if (!m || m.pitch_hz === 0) throw new Error(`the held-out render of ${genome.base_voice} could not be measured`);
  return round(semitones(target.pitch_hz, m.pitch_hz), 2);
}
