// The inner loop of the polyphase resampler (polyphase.ts), built to WebAssembly with 128-bit SIMD by
// scripts/build-polyphase-kernel.sh, which writes polyphase-kernel.ts. Written in C because V8 does not
// vectorize JavaScript: the same loop in JavaScript ran 4-8x slower than this.
//
// For k in [0, count): y[k] is the dot product of `taps` samples of x from index n with row p of the table
// h (`taps` floats per row, taps a multiple of 4); then n advances by step and p by frac, carrying into n
// when p reaches `phases`.
#include <wasm_simd128.h>

void polyphase(const float *x, const float *h, float *y, int count, int n, int p, int phases, int step, int frac, int taps) {
  for (int k = 0; k < count; k++) {
    const float *a = x + n;
    const float *b = h + p * taps;
    v128_t acc = wasm_f32x4_splat(0.0f);
    // do-while, not for: a loop that may run zero times lets clang call memset, which this module lacks.
    int j = 0;
    do {
      acc = wasm_f32x4_add(acc, wasm_f32x4_mul(wasm_v128_load(a + j), wasm_v128_load(b + j)));
      j += 4;
    } while (j < taps);
    y[k] = wasm_f32x4_extract_lane(acc, 0) + wasm_f32x4_extract_lane(acc, 1) + wasm_f32x4_extract_lane(acc, 2) + wasm_f32x4_extract_lane(acc, 3);
    n += step;
    p += frac;
    if (p >= phases) {
      p -= phases;
      n++;
    }
  }
}
