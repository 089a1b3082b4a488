// Speex's resampler (WebAssembly): any pair of rates, for those the polyphase resampler's table cannot
// serve (polyphase.ts).
import type { SpeexModule } from '@echogarden/speex-resampler-wasm';
import { concatSamples } from '../samples.ts';
import { lightFilterFits } from './filter-choice.ts';
import { StreamResampler } from './stream-resampler.ts';

/** The speex quality used between two rates (filter-choice.ts). */
export const speexQuality = (inRate: number, outRate: number): number => (lightFilterFits(inRate, outRate) ? 3 : 5);
// Input is fed in blocks so the wasm buffers stay small whatever the caller's chunk size.
const BLOCK = 8192;

let modulePromise: Promise<SpeexModule> | undefined;

/** Loads the wasm once per thread (module state is per worker, so each worker gets its own instance). */
export function loadSpeex(): Promise<SpeexModule> {
  modulePromise ??= import('@echogarden/speex-resampler-wasm/simd')
    .then((m) => m.default())
    .catch(() => import('@echogarden/speex-resampler-wasm').then((m) => m.default()));
  return modulePromise;
}

// A resampler dropped without flush()/dispose() (a crashed stream) would leak its wasm state forever.
const leakGuard = new FinalizationRegistry<() => void>((free) => free());

export class SpeexResampler extends StreamResampler {
  private state: number;
  private readonly scratch: number; // [inLen u32][outLen u32][err i32] then the two sample buffers
  private readonly inPtr: number;
  private readonly outPtr: number;
  private readonly outCapacity: number;
  private readonly token = {};

  constructor(
    private readonly m: SpeexModule,
    inRate: number,
    outRate: number,
  ) {
    super(inRate, outRate);
    this.outCapacity = Math.ceil((BLOCK * outRate) / inRate) + 64;
    this.scratch = m._malloc(16 + 4 * BLOCK + 4 * this.outCapacity);
    this.inPtr = this.scratch + 16;
    this.outPtr = this.inPtr + 4 * BLOCK;
    this.state = m._speex_resampler_init(1, inRate, outRate, speexQuality(inRate, outRate), this.scratch + 8);
    const err = m.HEAP32[(this.scratch + 8) >> 2];
    if (this.state === 0 || err !== 0) {
      m._free(this.scratch);
      throw new Error(`speex resampler init failed (${inRate} -> ${outRate} Hz, error ${err})`);
    }
    // Without this the output starts with the filter's delay in zeros, which would shift every chunk.
    m._speex_resampler_skip_zeros(this.state);
    const state = this.state;
    const scratch = this.scratch;
    leakGuard.register(
      this,
      () => {
        m._speex_resampler_destroy(state);
        m._free(scratch);
      },
      this.token,
    );
  }

  protected isClosed(): boolean {
    return this.state === 0;
  }

  protected tailLength(): number {
    return this.m._speex_resampler_get_input_latency(this.state) + 1;
  }

  dispose(): void {
    if (this.state === 0) return;
    leakGuard.unregister(this.token);
    this.m._speex_resampler_destroy(this.state);
    this.m._free(this.scratch);
    this.state = 0;
  }

  protected convert(x: Float32Array): Float32Array {
    const m = this.m;
    const parts: Float32Array[] = [];
    for (let offset = 0; offset < x.length;) {
      const n = Math.min(BLOCK, x.length - offset);
      // HEAP views are replaced when the wasm memory grows, so they are read fresh each time.
      m.HEAPF32.set(x.subarray(offset, offset + n), this.inPtr >> 2);
      m.HEAPU32[this.scratch >> 2] = n;
      m.HEAPU32[(this.scratch + 4) >> 2] = this.outCapacity;
      m._speex_resampler_process_float(this.state, 0, this.inPtr, this.scratch, this.outPtr, this.scratch + 4);
      const consumed = m.HEAPU32[this.scratch >> 2];
      const written = m.HEAPU32[(this.scratch + 4) >> 2];
      if (written > 0) {
        parts.push(m.HEAPF32.slice(this.outPtr >> 2, (this.outPtr >> 2) + written));
      }
      if (consumed === 0 && written === 0) throw new Error('speex resampler made no progress');
      offset += consumed;
    }
    return concatSamples(parts);
  }
}
