// A polyphase FIR resampler: for a rate pair in lowest terms out/in = L/M, each output sample is one dot
// product of the input with one of L precomputed filter rows (the filter's value at that output's fraction of
// a sample), so nothing is interpolated per sample. That needs a table of L rows, so it serves rate pairs
// with a small L (every rate the engines and formats use); speex takes the rest (resample.ts).
//
// The filter follows speex's own choices, so the two sound the same: a Kaiser-windowed sinc of 48 taps (80 dB)
// where the speech band fits easily, 80 taps (100 dB) where the lower rate is close to it, and the same
// cut-offs (resamplerFilter). The dot products run in WebAssembly with SIMD (simd/kernels.c): speex
// resamples 22 050 to 24 000 Hz (147:160) by interpolating between table entries for every output sample,
// four dot products each, and took about a quarter of espeak's own time (measured on the speech pipeline).
import type { Resampler } from './resampler.ts';
import { concatSamples } from '../samples.ts';
import { KERNEL_BLOCK as BLOCK, simdKernels } from '../simd/kernels.ts';
import { lightFilterFits } from './filter-choice.ts';
import { StreamResampler } from './stream-resampler.ts';

/** A filter with more than this many coefficients (L rows x taps) is left to speex. */
const MAX_TABLE = 1 << 17;
/** Filters kept per thread: the rate pairs in use are few, but uploads can come at any rate. */
const MAX_FILTERS = 8;

export interface FilterQuality {
  /** Taps of the filter at the lower rate. */
  taps: number;
  /** Kaiser window shape: stop-band attenuation of about 8.7 + beta / 0.1102 dB. */
  beta: number;
  /** Cut-off as a fraction of the lower Nyquist frequency, up- and down-sampling. */
  up: number;
  down: number;
}

// Speex's quality 3 and 5 (filter length, window, cut-offs).
const LIGHT: FilterQuality = { taps: 48, beta: 8, up: 0.917, down: 0.895 };
const FULL: FilterQuality = { taps: 80, beta: 10, up: 0.94, down: 0.922 };

/** The filter used between two rates. */
export const resamplerFilter = (inRate: number, outRate: number): FilterQuality => (lightFilterFits(inRate, outRate) ? LIGHT : FULL);

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** Modified Bessel function of the first kind, order 0 (the Kaiser window's shape). */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  for (let k = 1; term > 1e-12 * sum; k++) {
    term *= (x / (2 * k)) ** 2;
    sum += term;
  }
  return sum;
}

interface Filter {
  /** L: output samples per `step` input samples, and the table's rows. */
  phases: number;
  /** M. */
  step: number;
  /** Coefficients per row, a multiple of 4 (the kernel's SIMD width). */
  taps: number;
  table: Float32Array;
}

const filters = new Map<string, Filter>();

/** The filter between two rates, or undefined when its table would be too large (awkward rate pairs). */
function filterFor(inRate: number, outRate: number): Filter | undefined {
  const key = `${inRate}:${outRate}`;
  const known = filters.get(key);
  if (known) {
    // Most recently used last: the first is the one to drop.
    filters.delete(key);
    filters.set(key, known);
    return known;
  }
  const g = gcd(inRate, outRate);
  const phases = outRate / g;
  const step = inRate / g;
  const quality = resamplerFilter(inRate, outRate);
  // Down-sampling stretches the filter over more input samples: its cut-off is the output's Nyquist.
  const scale = Math.min(1, phases / step);
  const taps = 4 * Math.ceil(quality.taps / scale / 4);
  if (phases * taps > MAX_TABLE) return undefined;
  const cutoff = scale * (scale < 1 ? quality.down : quality.up);
  const half = taps / 2;
  const table = new Float32Array(phases * taps);
  const row = new Float64Array(taps);
  for (let p = 0; p < phases; p++) {
    // Tap j meets the input sample j - (half - 1) places after the one at or before the output's time, which
    // lies p / phases of a sample later.
    let sum = 0;
    for (let j = 0; j < taps; j++) {
      const t = j - (half - 1) - p / phases;
      const x = Math.PI * cutoff * t;
      const sinc = x === 0 ? 1 : Math.sin(x) / x;
      const r = t / half;
      row[j] = Math.abs(r) >= 1 ? 0 : sinc * besselI0(quality.beta * Math.sqrt(1 - r * r));
      sum += row[j];
    }
    // Each row sums to one: a constant stays constant, whatever the phase.
    for (let j = 0; j < taps; j++) table[p * taps + j] = row[j] / sum;
  }
  const filter = { phases, step, taps, table };
  if (filters.size >= MAX_FILTERS) filters.delete(filters.keys().next().value as string);
  filters.set(key, filter);
  return filter;
}

class PolyphaseResampler extends StreamResampler {
  /** Input not yet behind every output's window; starts with half a filter of silence before the first sample. */
  private pending: Float32Array;
  private phase = 0;
  private closed = false;
  /** Input samples per kernel call: BLOCK, or fewer when up-sampling would make more than BLOCK outputs (its scratch stays small). */
  private readonly block: number;

  constructor(
    private readonly filter: Filter,
    inRate: number,
    outRate: number,
  ) {
    super(inRate, outRate);
    // Output 0 falls on input 0, with the filter centred there: no delay to skip.
    this.pending = new Float32Array(filter.taps / 2 - 1);
    this.block = Math.max(1, Math.floor((BLOCK * Math.min(filter.phases, filter.step)) / filter.phases));
  }

  protected isClosed(): boolean {
    return this.closed;
  }

  protected tailLength(): number {
    return this.filter.taps / 2 + 1;
  }

  protected convert(x: Float32Array): Float32Array {
    const parts: Float32Array[] = [];
    for (let at = 0; at < x.length; at += this.block) parts.push(this.run(x.subarray(at, at + this.block)));
    return concatSamples(parts);
  }

  dispose(): void {
    this.closed = true;
    this.pending = new Float32Array(0);
  }

  /** Every output whose window lies within what has come so far. */
  private run(x: Float32Array): Float32Array {
    const { phases, step, taps, table } = this.filter;
    const inLength = this.pending.length + x.length;
    // Output k's window starts at floor((phase + k * step) / phases); the last one must end within the input.
    const last = inLength - taps;
    const count = last < 0 ? 0 : Math.floor(((last + 1) * phases - 1 - this.phase) / step) + 1;
    const simd = simdKernels();
    // Scratch layout, in floats: the table, then the input, then the output.
    const xAt = table.length;
    const yAt = xAt + inLength;
    const heap = simd.scratch(yAt + count);
    heap.set(table);
    heap.set(this.pending, xAt);
    heap.set(x, xAt + this.pending.length);
    if (count > 0) {
      simd.polyphase(
        simd.address(xAt),
        simd.address(0),
        simd.address(yAt),
        count,
        0,
        this.phase,
        phases,
        Math.floor(step / phases),
        step % phases,
        taps,
      );
    }
    const advanced = this.phase + count * step;
    const consumed = Math.floor(advanced / phases);
    this.phase = advanced % phases;
    this.pending = heap.slice(xAt + consumed, xAt + inLength);
    return heap.slice(yAt, yAt + count);
  }
}

/** A polyphase resampler between two rates, or undefined when the rate pair needs too large a table. */
export function createPolyphaseResampler(inRate: number, outRate: number): Resampler | undefined {
  const filter = filterFor(inRate, outRate);
  return filter ? new PolyphaseResampler(filter, inRate, outRate) : undefined;
}
