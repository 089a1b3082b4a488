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
  for (int k = 0; k < count; k++) {
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
