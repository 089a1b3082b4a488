// The audio pipeline's inner loops that JavaScript runs slowly, built to WebAssembly with 128-bit SIMD by
// scripts/build-simd-kernels.sh, which writes kernels-wasm.ts (loaded by kernels.ts). V8 does not vectorize
// JavaScript: the polyphase loop ran 4-8x slower there.
#include <wasm_simd128.h>

static inline v128_t load(const float *p) { return wasm_v128_load(p); }
static inline v128_t mul(v128_t a, v128_t b) { return wasm_f32x4_mul(a, b); }
static inline v128_t add(v128_t a, v128_t b) { return wasm_f32x4_add(a, b); }

/** The sum of the four lanes, in every lane. */
static inline v128_t lane_sum(v128_t v) {
  v = add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  return add(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
}

// The polyphase resampler (resamplers/polyphase.ts). For k in [0, count): y[k] is the dot product of `taps`
// samples of x from index n with row p of the table h (`taps` floats per row, a multiple of 4); then n
// advances by step and p by frac, carrying into n when p reaches `phases`.
void polyphase(const float *x, const float *h, float *y, int count, int n, int p, int phases, int step, int frac, int taps) {
  int k = 0;
  // Two outputs at a time, each with its own running sum in the same order as one alone: the same bits, but the
  // two chains of additions overlap instead of each waiting on the one before (the loop was latency-bound).
  for (; k + 2 <= count; k += 2) {
    int n2 = n + step, p2 = p + frac;
    if (p2 >= phases) {
      p2 -= phases;
      n2++;
    }
    const float *a = x + n, *b = h + p * taps;
    const float *a2 = x + n2, *b2 = h + p2 * taps;
    v128_t acc = wasm_f32x4_splat(0.0f), acc2 = wasm_f32x4_splat(0.0f);
    int j = 0;
    do {
      acc = add(acc, mul(load(a + j), load(b + j)));
      acc2 = add(acc2, mul(load(a2 + j), load(b2 + j)));
      j += 4;
    } while (j < taps);
    y[k] = wasm_f32x4_extract_lane(lane_sum(acc), 0);
    y[k + 1] = wasm_f32x4_extract_lane(lane_sum(acc2), 0);
    n = n2 + step;
    p = p2 + frac;
    if (p >= phases) {
      p -= phases;
      n++;
    }
  }
  for (; k < count; k++) {
    const float *a = x + n;
    const float *b = h + p * taps;
    v128_t acc = wasm_f32x4_splat(0.0f);
    // do-while, not for: a loop that may run zero times lets clang call memset, which this module lacks.
    int j = 0;
    do {
      acc = add(acc, mul(load(a + j), load(b + j)));
      j += 4;
    } while (j < taps);
    y[k] = wasm_f32x4_extract_lane(lane_sum(acc), 0);
    n += step;
    p += frac;
    if (p >= phases) {
      p -= phases;
      n++;
    }
  }
}

// The true-peak limiter's per-sample loop (limiter.ts), the same arithmetic in the same order, so its output is
// the JavaScript one's to the bit: doubles where that kept doubles, floats where it stored to a Float32Array.
// The state is one block: the scalars (LIMIT_* below, as doubles), the last inputs twice (RECENT doubles),
// then the sliding minimum's indices and gains, the delayed inputs (`size` each) and the held gains
// (look + 1). x is null when flushing: zeros come in, pushing out what the look-ahead holds.
enum {
  LIMIT_CEILING, LIMIT_RELEASE, LIMIT_QUIET, LIMIT_LOOK, LIMIT_WINDOW, LIMIT_SIZE,
  LIMIT_HEAD, LIMIT_COUNT, LIMIT_SMOOTH_SUM, LIMIT_HELD, LIMIT_N, LIMIT_OUT, LIMIT_LOUD_SEEN,
  LIMIT_R, LIMIT_SLOT_IN, LIMIT_SLOT_SMOOTH, LIMIT_UNITY, LIMIT_SCALARS
};
#define SPAN 16
#define HALF 8
#define RECENT (2 * SPAN)

static inline double absd(double v) { return __builtin_fabs(v); }

// The 0.5 and 0.25 kernels' sums share their input (a + b): they run as the two lanes of one f64x2, each lane
// adding in the scalar order, so the result is the scalar code's to the bit.
static double inter_sample_peak(const double *w, const double *mid_even_k, const double *odd_k) {
  v128_t mid_even = wasm_f64x2_splat(0.0);
  double odd = 0;
  const double *last = w + SPAN - 1;
  for (int j = 0; j < HALF; j++) {
    double a = w[j], b = last[-j];
    mid_even = wasm_f64x2_add(mid_even, wasm_f64x2_mul(wasm_v128_load(mid_even_k + 2 * j), wasm_f64x2_splat(a + b)));
    odd += odd_k[j] * (a - b);
  }
  double mid = absd(wasm_f64x2_extract_lane(mid_even, 0));
  double quarter = absd(wasm_f64x2_extract_lane(mid_even, 1)) + absd(odd);
  return mid > quarter ? mid : quarter;
}

// coefficients: MID and EVEN interleaved (2 * HALF doubles), then ODD (HALF doubles). Returns the number of samples written to y.
int limit(double *state, const double *coefficients, const float *x, float *y, int len, double gain) {
  double *s = state;
  double *recent = s + LIMIT_SCALARS;
  const double ceiling = s[LIMIT_CEILING], release = s[LIMIT_RELEASE], quiet = s[LIMIT_QUIET];
  const int look = (int)s[LIMIT_LOOK], window = (int)s[LIMIT_WINDOW], size = (int)s[LIMIT_SIZE];
  int *min_index = (int *)(recent + RECENT);
  float *min_gain = (float *)(min_index + size);
  float *delayed = min_gain + size;
  float *smooth = delayed + size;
  const double *mid_even_k = coefficients, *odd_k = coefficients + 2 * HALF;

  int head = (int)s[LIMIT_HEAD], count = (int)s[LIMIT_COUNT];
  double smooth_sum = s[LIMIT_SMOOTH_SUM], held = s[LIMIT_HELD];
  // Counters as doubles, as in JavaScript: exact far beyond any stream's length.
  double n = s[LIMIT_N], out = s[LIMIT_OUT], loud_seen = s[LIMIT_LOUD_SEEN], unity = s[LIMIT_UNITY];
  int r = (int)s[LIMIT_R], slot_in = (int)s[LIMIT_SLOT_IN], slot_smooth = (int)s[LIMIT_SLOT_SMOOTH];
  int k = 0;
  for (int i = 0; i < len; i++) {
    double v = x ? (double)x[i] * gain : 0.0;
    recent[r] = v;
    recent[r + SPAN] = v;
    r = r + 1 == SPAN ? 0 : r + 1;
    if (absd(v) > quiet) loud_seen = n;
    double peak = 0;
    if (n - loud_seen < SPAN) {
      double between = inter_sample_peak(recent + r, mid_even_k, odd_k);
      peak = absd(v) > between ? absd(v) : between;
    }
    // The sliding minimum of the gains the last `size` inputs need: indices whose gain is under every later
    // one's, oldest first (a gain of 1 needs no entry); the minimum over the window is the front's.
    if (count > 0 && (double)min_index[head] <= n - size) {
      head = head + 1 == size ? 0 : head + 1;
      count--;
    }
    if (peak > ceiling) {
      float g = (float)(ceiling / peak);
      while (count > 0 && min_gain[(head + count - 1) % size] >= g) count--;
      int slot = (head + count) % size;
      min_index[slot] = (int)n;
      min_gain[slot] = g;
      count++;
    }
    delayed[slot_in] = (float)v;
    slot_in = slot_in + 1 == size ? 0 : slot_in + 1;
    n++;
    // Still filling the look-ahead: nothing leaves yet.
    if (n <= window) continue;
    double min = count > 0 ? (double)min_gain[head] : 1.0;
    out++;
    // Unity gain held for the whole average: the sample passes as it is (most of speech, skipped cheaply).
    if (min == 1.0 && unity > look) {
      y[k++] = delayed[slot_in];
      continue;
    }
    if (min < held) {
      held = min;
    } else {
      double released = held + (1 - held) * release;
      held = min < released ? min : released;
    }
    // The release only nears 1 (and in floating point can stall a hair below it): within 1e-9 it is 1, a
    // difference float samples cannot hold.
    if (held > 1 - 1e-9) held = 1;
    unity = held == 1.0 ? unity + 1 : 0;
    // Nothing came before the first sample: the average starts from its gain, not from unity.
    if (out == 1) {
      for (int j = 0; j <= look; j++) smooth[j] = (float)held;
      smooth_sum = held * (look + 1);
    }
    smooth_sum += held - (double)smooth[slot_smooth];
    smooth[slot_smooth] = (float)held;
    slot_smooth = slot_smooth + 1 == look + 1 ? 0 : slot_smooth + 1;
    // The average has only unity gains in it now; the sum restarts exact, free of rounding drift.
    if (unity > look) smooth_sum = look + 1;
    double average = smooth_sum / (look + 1);
    y[k++] = (float)((double)delayed[slot_in] * (average < 1 ? average : 1.0));
  }
  s[LIMIT_HEAD] = head;
  s[LIMIT_COUNT] = count;
  s[LIMIT_SMOOTH_SUM] = smooth_sum;
  s[LIMIT_HELD] = held;
  s[LIMIT_N] = n;
  s[LIMIT_OUT] = out;
  s[LIMIT_LOUD_SEEN] = loud_seen;
  s[LIMIT_R] = r;
  s[LIMIT_SLOT_IN] = slot_in;
  s[LIMIT_SLOT_SMOOTH] = slot_smooth;
  s[LIMIT_UNITY] = unity;
  return k;
}

// Float samples to 16-bit as encoders/pcm.ts defines it: x * 32767 rounded half up, clipped to the int16 range.
// In doubles, where x * 32767 and x * 32767 + 0.5 are exact for any float x (at most 39 significant bits),
// so floor(v + 0.5) is JavaScript's Math.round(v) to the bit; NaN becomes 0, as a store to an Int16Array makes it.
static inline v128_t round_clip(v128_t v) {
  v = wasm_f64x2_floor(wasm_f64x2_add(v, wasm_f64x2_splat(0.5)));
  return wasm_f64x2_min(wasm_f64x2_max(v, wasm_f64x2_splat(-32768.0)), wasm_f64x2_splat(32767.0));
}

static inline v128_t to_int32(v128_t lo, v128_t hi) {
  // Each conversion fills the two low lanes; the pair of them makes four.
  v128_t a = wasm_i32x4_trunc_sat_f64x2_zero(round_clip(lo));
  v128_t b = wasm_i32x4_trunc_sat_f64x2_zero(round_clip(hi));
  return wasm_i32x4_shuffle(a, b, 0, 1, 4, 5);
}

void to_int16(const float *x, short *y, int count) {
  const v128_t scale = wasm_f64x2_splat(32767.0);
  int i = 0;
  for (; i + 8 <= count; i += 8) {
    v128_t a = wasm_v128_load(x + i);
    v128_t b = wasm_v128_load(x + i + 4);
    v128_t a0 = wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(a), scale);
    v128_t a1 = wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(a, a, 2, 3, 0, 1)), scale);
    v128_t b0 = wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(b), scale);
    v128_t b1 = wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(b, b, 2, 3, 0, 1)), scale);
    wasm_v128_store(y + i, wasm_i16x8_narrow_i32x4(to_int32(a0, a1), to_int32(b0, b1)));
  }
  for (; i < count; i++) {
    double v = (double)x[i] * 32767.0;
    y[i] = v >= 32767.0 ? 32767 : v <= -32768.0 ? -32768 : v == v ? (short)__builtin_floor(v + 0.5) : 0;
  }
}
