// Resampling between rates. The polyphase resampler (resamplers/polyphase.ts) serves every rate pair whose
// filter table is small, which is every rate the engines and formats use; speex (resamplers/speex.ts) the rest.
import { createPolyphaseResampler } from './resamplers/polyphase.ts';
import { loadSpeex, SpeexResampler } from './resamplers/speex.ts';
import type { Resampler } from './resamplers/resampler.ts';
import { concatSamples } from './samples.ts';

export type { Resampler } from './resamplers/resampler.ts';

class IdentityResampler implements Resampler {
  constructor(
    readonly inRate: number,
    readonly outRate: number,
  ) {}
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
