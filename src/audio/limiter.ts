// A streaming look-ahead peak limiter: keeps every sample, and the peaks between samples, under a
// ceiling without clicks. Output lags input by the look-ahead; flush() returns what is held back, so the
// output has exactly as many samples as the input.
//
// Gain: for each sample, the gain that would bring its (inter-sample) peak to the ceiling; the minimum of
// that over the next `lookahead` samples (so the gain is down before the peak arrives), released slowly
// (one pole) and smoothed by a moving average as long as the look-ahead. The average of minimums taken
// over windows that all contain the peak is never above the gain the peak needs: the ceiling holds.

const LOOKAHEAD_SECONDS = 0.005;
const RELEASE_SECONDS = 0.08;
// True peak as BS.1770 estimates it: 4x oversampling. The points between two samples come from a
// Hann-windowed sinc over TAPS samples on each side, so the estimate for the gap before sample n-TAPS+1
// is known TAPS samples late.
const TAPS = 8;
const PHASES = [0.25, 0.5, 0.75];
const KERNELS = PHASES.map((phase) => {
  const k = new Float64Array(2 * TAPS);
  for (let j = 0; j < 2 * TAPS; j++) {
    const t = j - (TAPS - 1) - phase; // offset of sample (m - TAPS + 1 + j) from the point m + phase
    const sinc = t === 0 ? 1 : Math.sin(Math.PI * t) / (Math.PI * t);
    const hann = 0.5 + 0.5 * Math.cos((Math.PI * t) / TAPS);
    k[j] = sinc * hann;
  }
  return k;
});
const HISTORY = TAPS;
// The largest gain any kernel has from its input to a point between samples: while every sample the
// kernels can see is under ceiling / KERNEL_GAIN, no point between them can reach the ceiling, and the
// (costly) estimate is skipped. Speech spends most of its time there.
const KERNEL_GAIN = Math.max(...KERNELS.map((k) => k.reduce((s, v) => s + Math.abs(v), 0)));

export interface Limiter {
  /** Limited audio for the input so far, less the look-ahead still held. */
  process(x: Float32Array): Float32Array;
  /** The held tail. */
  flush(): Float32Array;
}

const SPAN = 2 * TAPS;
const UNITY = 1 - 1e-9;
const HALF = TAPS;

// The kernels' symmetries halve the estimate's work: the 0.5 kernel is even about the window's middle and the
// 0.75 kernel is the 0.25 one reversed. With a_j = w_j + w_(15-j) and d_j = w_j - w_(15-j) (j < 8), the 0.5
// point is sum(MID_j a_j), and the 0.25 and 0.75 points are E + O and E - O for E = sum(EVEN_j a_j) and
// O = sum(ODD_j d_j): the larger of the two in size is |E| + |O|. 24 products for three points instead of 48.
const MID = Float64Array.from({ length: HALF }, (_, j) => KERNELS[1][j]);
const EVEN = Float64Array.from({ length: HALF }, (_, j) => (KERNELS[0][j] + KERNELS[0][SPAN - 1 - j]) / 2);
const ODD = Float64Array.from({ length: HALF }, (_, j) => (KERNELS[0][j] - KERNELS[0][SPAN - 1 - j]) / 2);

/** Largest |value| 4x oversampled between the two middle samples of the SPAN samples at `w[at..at+SPAN)`. */
function interSamplePeak(w: Float64Array, at: number): number {
  let mid = 0;
  let even = 0;
  let odd = 0;
  const last = at + SPAN - 1;
  for (let j = 0; j < HALF; j++) {
    const a = w[at + j];
    const b = w[last - j];
    mid += MID[j] * (a + b);
    even += EVEN[j] * (a + b);
    odd += ODD[j] * (a - b);
  }
  const quarter = Math.abs(even) + Math.abs(odd);
  return Math.abs(mid) > quarter ? Math.abs(mid) : quarter;
}


/**
 * The limiter's state. The per-sample loop (run) works on local copies of it and stores them back at the
 * end: state read and written through a closure or `this` on every sample cost more than the limiting.
 */
class PeakLimiter implements Limiter {
  private readonly look: number;
  private readonly window: number;
  private readonly size: number;
  private readonly release: number;
  private readonly quiet: number;
  // The gains the last `size` inputs need, as a sliding minimum: indices whose gain is under every later
  // one's, oldest first (a gain of 1 needs no entry). The minimum over the window is the front's.
  private readonly minIndex: Int32Array;
  private readonly minGain: Float32Array;
  private head = 0;
  private count = 0;
  private readonly delayed: Float32Array; // the inputs themselves
  private readonly smooth: Float32Array; // the last look+1 held gains, for the moving average
  private smoothSum: number;
  private readonly recent = new Float64Array(2 * SPAN); // the last inputs, each twice, for the inter-sample estimate
  private held = 1;
  private n = 0; // inputs seen
  private out = 0; // outputs produced
  private loudSeen = -Infinity; // the last input over `quiet`
  // Ring positions as wrapping counters: n % SPAN, n % size, out % (look + 1).
  private r = 0;
  private slotIn = 0;
  private slotSmooth = 0;
  private unity = 0; // outputs in a row at a held gain of exactly 1

  constructor(
    rate: number,
    private readonly ceiling: number,
    private readonly gain: number,
  ) {
    this.look = Math.max(1, Math.round(rate * LOOKAHEAD_SECONDS));
    // The peak found at input n may lie between samples n-TAPS and n-TAPS+1: the window is widened by that much.
    this.window = this.look + HISTORY;
    this.size = this.window + 1;
    this.release = 1 - Math.exp(-1 / (rate * RELEASE_SECONDS));
    this.quiet = ceiling / KERNEL_GAIN;
    this.minIndex = new Int32Array(this.size);
    this.minGain = new Float32Array(this.size);
    this.delayed = new Float32Array(this.size);
    this.smooth = new Float32Array(this.look + 1).fill(1);
    this.smoothSum = this.look + 1;
  }

  process(x: Float32Array): Float32Array {
    const y = new Float32Array(Math.max(0, Math.min(x.length, this.n + x.length - this.window)));
    this.run(x, x.length, this.gain, y);
    return y;
  }

  flush(): Float32Array {
    const rest = Math.min(this.n, this.window);
    const y = new Float32Array(rest);
    this.run(undefined, rest, 0, y);
    return y;
  }

  /** Feeds `len` inputs (x times gain, or zeros) and writes the samples leaving the look-ahead to y. */
  private run(x: Float32Array | undefined, len: number, gain: number, y: Float32Array): void {
    const { ceiling, window, size, release, quiet, minIndex, minGain, delayed, smooth, recent, look } = this;
    let { head, count, smoothSum, held, n, out, loudSeen, r, slotIn, slotSmooth, unity } = this;
    let k = 0;
    for (let i = 0; i < len; i++) {
      const v = x === undefined ? 0 : x[i] * gain;
      recent[r] = v;
      recent[r + SPAN] = v;
      r = r + 1 === SPAN ? 0 : r + 1;
      if (Math.abs(v) > quiet) loudSeen = n;
      const peak = n - loudSeen < SPAN ? Math.max(Math.abs(v), interSamplePeak(recent, r)) : 0;
      if (count > 0 && minIndex[head] <= n - size) {
        head = head + 1 === size ? 0 : head + 1;
        count--;
      }
      if (peak > ceiling) {
        const g = Math.fround(ceiling / peak);
        while (count > 0 && minGain[(head + count - 1) % size] >= g) count--;
        const slot = (head + count) % size;
        minIndex[slot] = n;
        minGain[slot] = g;
        count++;
      }
      delayed[slotIn] = v;
      slotIn = slotIn + 1 === size ? 0 : slotIn + 1;
      n++;
      if (n <= window) {
        // Still filling the look-ahead (flush of a short stream writes zeros for these).
        if (x === undefined) y[k++] = 0;
        continue;
      }
      // The sample leaving now is the oldest one; the window ahead of it is the whole buffer.
      const min = count > 0 ? minGain[head] : 1;
      out++;
      // Unity gain held for the whole average: the sample passes as it is (most of speech, skipped cheaply).
      if (min === 1 && unity > look) {
        y[k++] = delayed[slotIn];
        continue;
      }
      held = min < held ? min : Math.min(min, held + (1 - held) * release);
      // The release only nears 1 (and in floating point can stall a hair below it): within 1e-9 it is 1, a
      // difference float32 samples cannot hold.
      if (held > UNITY) held = 1;
      unity = held === 1 ? unity + 1 : 0;
      // Nothing came before the first sample: the average starts from its gain, not from unity.
      if (out === 1) {
        smooth.fill(held);
        smoothSum = held * (look + 1);
      }
      smoothSum += held - smooth[slotSmooth];
      smooth[slotSmooth] = held;
      slotSmooth = slotSmooth + 1 === look + 1 ? 0 : slotSmooth + 1;
      // The average has only unity gains in it now; the sum restarts exact, free of rounding drift.
      if (unity > look) smoothSum = look + 1;
      y[k++] = delayed[slotIn] * Math.min(1, smoothSum / (look + 1));
    }
    this.head = head;
    this.count = count;
    this.smoothSum = smoothSum;
    this.held = held;
    this.n = n;
    this.out = out;
    this.loudSeen = loudSeen;
    this.r = r;
    this.slotIn = slotIn;
    this.slotSmooth = slotSmooth;
    this.unity = unity;
  }
}

export function createLimiter(rate: number, ceiling: number, gain = 1): Limiter {
  return new PeakLimiter(rate, ceiling, gain);
}
