// What every resampler implements, in a file of its own: the resamplers and the module that chooses among them
// (resample.ts) both need it, and neither should import the other for it.

/** A streaming mono resampler: feed chunks in order, then flush once to get the tail. */
export interface Resampler {
  readonly inRate: number;
  readonly outRate: number;
  /** Resamples the next chunk; the output lags the input by the filter's latency until flush(). */
  process(x: Float32Array): Float32Array;
  /** Returns the remaining output and frees the wasm state; the total output is round(inTotal * outRate / inRate). */
  flush(): Float32Array;
  /** Frees the wasm state without producing the tail (for aborted streams); safe to call more than once. */
  dispose(): void;
}
