// The value forms of SSML attributes (SSML 1.1 §3.2): durations, prosody rate/pitch/volume. Each parser
// returns undefined for a value it does not understand, so the caller can name the attribute in its error.
import { lookupTable } from './lookup-table.ts';

/** The longest single `<break>`. */
export const MAX_BREAK_SECONDS = 10;

/** The most break time one request may hold, all `<break>`s together (each is silence that must be made). */
export const MAX_BREAK_SECONDS_PER_REQUEST = 300;

/** `<break strength>` in seconds, close to what the engines' own sentence and paragraph pauses are. */
export const BREAK_STRENGTHS = lookupTable<number>({
  none: 0,
  'x-weak': 0.1,
  weak: 0.2,
  medium: 0.4,
  strong: 0.7,
  'x-strong': 1.2,
});

const NUMBER = '[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)';

/** "500ms", "1.5s", "2s" in seconds. */
export function parseBreakTime(value: string): number | undefined {
  const m = new RegExp(`^\\s*(${NUMBER})\\s*(ms|s)\\s*$`).exec(value);
  if (!m) return undefined;
  const n = Number(m[1]);
  if (!Number.isFinite(n) || n < 0) return undefined;
  return m[2] === 'ms' ? n / 1000 : n;
}

const RATES = lookupTable<number>({ 'x-slow': 0.5, slow: 0.75, medium: 1, default: 1, fast: 1.3, 'x-fast': 1.7 });

/** Bounds of one prosody multiplier (the pipeline clamps the product to the engine's speed range). */
const RATE_MIN = 0.1;
const RATE_MAX = 10;

/**
 * A rate multiplier: a keyword, "50%" (half the normal rate), "+20%"/"-20%" (relative), or a bare number
 * ("0.5"). SSML 1.1 reads an unsigned percentage as a multiple of the default rate.
 */
export function parseProsodyRate(value: string): number | undefined {
  const v = value.trim().toLowerCase();
  const keyword = RATES[v];
  if (keyword !== undefined) return keyword;
  const pct = new RegExp(`^(${NUMBER})%$`).exec(v);
  let r: number | undefined;
  if (pct) {
    const n = Number(pct[1]);
    r = /^[+-]/.test(pct[1]) ? 1 + n / 100 : n / 100;
  } else if (new RegExp(`^${NUMBER}$`).test(v)) {
    r = Number(v);
  }
  if (r === undefined || !Number.isFinite(r) || r < RATE_MIN || r > RATE_MAX) return undefined;
  return r;
}

const PITCHES = lookupTable<number>({ 'x-low': 0.7, low: 0.85, medium: 1, default: 1, high: 1.18, 'x-high': 1.4 });

export interface PitchValue {
  /** Multiplier of the base pitch. */
  factor?: number;
  absoluteHz?: number;
  relativeHz?: number;
}

/** A pitch: a keyword, "+10%", "-2st" (semitones), "+20Hz" (relative) or "180Hz" (absolute). */
export function parseProsodyPitch(value: string): PitchValue | undefined {
  const v = value.trim().toLowerCase();
  const keyword = PITCHES[v];
  if (keyword !== undefined) return { factor: keyword };
  const m = new RegExp(`^(${NUMBER})(%|st|hz)$`).exec(v);
  if (!m) return undefined;
  const n = Number(m[1]);
  const signed = /^[+-]/.test(m[1]);
  if (!Number.isFinite(n)) return undefined;
  if (m[2] === '%') {
    const f = signed ? 1 + n / 100 : n / 100;
    return f >= 0.25 && f <= 4 ? { factor: f } : undefined;
  }
  if (m[2] === 'st') return Math.abs(n) <= 24 ? { factor: 2 ** (n / 12) } : undefined;
  if (signed) return Math.abs(n) <= 400 ? { relativeHz: n } : undefined;
  return n >= 30 && n <= 500 ? { absoluteHz: n } : undefined;
}

const VOLUMES_DB = lookupTable<number>({ 'x-soft': -12, soft: -6, medium: 0, default: 0, loud: 6, 'x-loud': 10 });

/** A linear gain: "silent", a keyword, "+6dB"/"-3dB", or a number 0-100 (100 = the normal level, SSML 1.0). */
export function parseProsodyVolume(value: string): number | undefined {
  const v = value.trim().toLowerCase();
  if (v === 'silent') return 0;
  const keyword = VOLUMES_DB[v];
  if (keyword !== undefined) return 10 ** (keyword / 20);
  const db = new RegExp(`^(${NUMBER})db$`).exec(v);
  if (db) {
    const n = Number(db[1]);
    return Number.isFinite(n) && n >= -40 && n <= 20 ? 10 ** (n / 20) : undefined;
  }
  if (new RegExp(`^${NUMBER}$`).test(v)) {
    const n = Number(v);
    return n >= 0 && n <= 100 ? n / 100 : undefined;
  }
  return undefined;
}
