// Measured facts about the engines' base voices, read from forge-calibration.json (written by
// scripts/gen-forge-calibration.ts), so that heard pitch and genomes map onto engine controls without loading
// an engine.
import { readFileSync } from 'node:fs';
import type { SpeakerFeatures } from '../../forge/speaker-features.ts';

/** How an espeak voice's heard pitch follows its `pitch <base> <base + range>` line (range = rho x base). */
export interface EspeakPitchModel {
  /** Range-to-base ratios, ascending. */
  rho: number[];
  /** Heard median pitch over the base pitch, at each rho. */
  median: number[];
  /** Heard intonation spread (p10 to p90) in semitones, at each rho. */
  range_st: number[];
}

/** flite's heard median pitch as a line in its `int_f0_target_mean`: heard = slope x target + offset. */
export interface FlitePitchModel {
  /** false for voices that ignore the target (rms). */
  controllable: boolean;
  slope: number;
  offset: number;
}

export interface BaseVoiceCalibration {
  /** The voice's own `pitch` line in Hz (espeak only): from its variant, its language file or the default. */
  pitch_line?: [number, number];
  /** The voice measured on the fit text of its language at its normal rate. */
  natural: SpeakerFeatures;
  /**
   * Percent of words a recognizer mishears in the voice's readings of fixed sentences (languages with a
   * recognizer at hand only): a clone's base is never much less intelligible than the best it could have had.
   */
  wer_percent?: number;
}

export interface ForgeCalibration {
  version: 1;
  /** Which fit text each measurement used; a change of text needs a new calibration. */
  fit_text_digest: string;
  espeak: EspeakPitchModel;
  flite: Record<string, FlitePitchModel>;
  /** By built-in voice id. */
  voices: Record<string, BaseVoiceCalibration>;
}

function load(): ForgeCalibration {
  const raw = JSON.parse(readFileSync(new URL('../../forge/forge-calibration.json', import.meta.url), 'utf8')) as ForgeCalibration;
  if (raw.version !== 1) throw new Error('forge-calibration.json: unknown version');
  const m = raw.espeak;
  if (m.rho.length < 2 || m.rho.length !== m.median.length || m.rho.length !== m.range_st.length) {
    throw new Error('forge-calibration.json: malformed espeak pitch model');
  }
  return raw;
}

export const CALIBRATION: ForgeCalibration = load();

export function calibrationOf(builtinId: string): BaseVoiceCalibration | undefined {
  return Object.hasOwn(CALIBRATION.voices, builtinId) ? CALIBRATION.voices[builtinId] : undefined;
}

/** Piecewise-linear y(x) through ascending xs, extended linearly past both ends. */
export function interpolate(xs: readonly number[], ys: readonly number[], x: number): number {
  const n = xs.length;
  let i = 0;
  if (x <= xs[0]) i = 0;
  else if (x >= xs[n - 1]) i = n - 2;
  else while (i < n - 2 && x > xs[i + 1]) i++;
  const t = (x - xs[i]) / (xs[i + 1] - xs[i]);
  return ys[i] + t * (ys[i + 1] - ys[i]);
}
