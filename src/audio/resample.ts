// Resampling between rates. The polyphase resampler (resamplers/polyphase.ts) serves every rate pair whose
// filter table is small, which is every rate the engines and formats use; speex (resamplers/speex.ts) the rest.
import { createPolyphaseResampler } from './resamplers/polyphase.ts';
import { loadSpeex, SpeexResampler } from './resamplers/speex.ts';
import { concatSamples } from './samples.ts';

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

class IdentityResampler implements Resampler {
  constructor(readonly inRate: number, readonly outRate: number) {}
  process(x: Float32Array): Float32Array {
    return x.slice();
  }
  flush(): Float32Array {
    return new Float32Array(0);
  }
  dispose(): void {}
}

/** Creates a resampler; equal rates give a pass-through that costs nothing. */
export async function createResampler(inRate: number, outRate: number): Promise<Resampler> {
  for (const r of [inRate, outRate]) {
    if (!Number.isInteger(r) || r < 1000 || r > 384000) throw new RangeError(`unsupported sample rate ${r}`);
  }
  if (inRate === outRate) return new IdentityResampler(inRate, outRate);
  return createPolyphaseResampler(inRate, outRate) ?? new SpeexResampler(await loadSpeex(), inRate, outRate);
}

/** Resamples a whole buffer in one go. */
export async function resampleAll(x: Float32Array, inRate: number, outRate: number): Promise<Float32Array> {
  const r = await createResampler(inRate, outRate);
  const a = r.process(x);
  const b = r.flush();
  return concatSamples([a, b].filter((p) => p.length > 0));
}
