// What every resampler keeps alike: the samples in and out so far, so that flush() ends the output at exactly
// round(in * outRate / inRate) samples whatever the filter's lag, and refusing input once closed.
import type { Resampler } from './resampler.ts';

export abstract class StreamResampler implements Resampler {
  private totalIn = 0;
  private totalOut = 0;

  constructor(
    readonly inRate: number,
    readonly outRate: number,
  ) {}

  /** Whether flush() or dispose() has been called. */
  protected abstract isClosed(): boolean;
  /** The output for the next input, lagging it by the filter's delay. */
  protected abstract convert(x: Float32Array): Float32Array;
  /** Zeros to feed after the last input so that every output still owed comes out. */
  protected abstract tailLength(): number;
  abstract dispose(): void;

  process(x: Float32Array): Float32Array {
    if (this.isClosed()) throw new Error('resampler already flushed or disposed');
    this.totalIn += x.length;
    const y = this.convert(x);
    this.totalOut += y.length;
    return y;
  }

  flush(): Float32Array {
    if (this.isClosed()) return new Float32Array(0);
    const tail = this.convert(new Float32Array(this.tailLength()));
    const expected = Math.round((this.totalIn * this.outRate) / this.inRate);
    const keep = Math.max(0, Math.min(tail.length, expected - this.totalOut));
    this.totalOut += keep;
    this.dispose();
    return tail.slice(0, keep);
  }
}
