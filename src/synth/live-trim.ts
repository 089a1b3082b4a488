// A piece cut down to its speech and margins while the engine still renders it (see shaping.ts for the rules):
// samples before the first speech frame are held back only as far as the lead margin reaches, samples after
// the latest speech frame until more speech comes or the piece ends (then the tail margin of them is kept). So
// a sentence's first sound leaves as soon as the engine has made it, and the result equals cutting the whole
// piece with the same threshold.
import { FADE_SECONDS, FRAME_SECONDS, type Margins } from './shaping.ts';

export interface LiveTrimStart {
  /** Seconds of margin kept before the speech (what a pause need not add). */
  leadSeconds: number;
  /** Samples cut from the front of the engine's output (to move word times with it). */
  cut: number;
}

export class LiveTrim {
  private readonly frame: number;
  private readonly lead: number;
  private readonly tail: number;
  private readonly fade: number;
  /** Samples not yet handed out or dropped; buf[0] is sample `base` of the engine's output. */
  private buf = new Float32Array(4096);
  private base = 0;
  private total = 0;
  /** Frames are measured from here on (always frame-aligned, as when the whole piece is measured). */
  private scanned = 0;
  private speechStart = -1;
  private speechEnd = 0;
  /** Everything before this has been handed out or dropped. */
  private released = 0;
  private fadedIn = false;

  constructor(
    readonly rate: number,
    private readonly threshold: number,
    before: Margins,
    after: Margins,
  ) {
    this.frame = Math.max(1, Math.round(rate * FRAME_SECONDS));
    this.lead = Math.round(rate * before.lead);
    this.tail = Math.round(rate * after.tail);
    this.fade = Math.round(rate * FADE_SECONDS);
  }

  /** Whether speech has been found yet. */
  get started(): boolean {
    return this.speechStart >= 0;
  }

  /**
   * Takes the engine's next samples; gives the start once, when the first speech frame is found, and the
   * samples that may go out now.
   */
  push(x: Float32Array): { start?: LiveTrimStart; out?: Float32Array } {
    this.append(x);
    const wasStarted = this.started;
    while (this.scanned + this.frame <= this.total) this.scanFrame(this.frame);
    const start = !wasStarted && this.started ? this.startInfo() : undefined;
    if (!this.started) {
      // Only the lead margin before the frame being measured can still be needed.
      this.dropBefore(Math.max(this.base, this.scanned - this.lead));
      return {};
    }
    const out = this.take(this.speechEnd);
    return { ...(start ? { start } : {}), ...(out ? { out } : {}) };
  }

  /** The engine is done: the last short frame is measured and the tail margin handed out, faded. */
  end(): { start?: LiveTrimStart; out?: Float32Array; tailSeconds: number } {
    const wasStarted = this.started;
    if (this.scanned < this.total) this.scanFrame(this.total - this.scanned);
    if (!this.started) return { tailSeconds: 0 };
    const start = !wasStarted ? this.startInfo() : undefined;
    const end = Math.min(this.total, this.speechEnd + this.tail);
    const tail = end - this.speechEnd;
    const out = this.take(end);
    if (out) fadeOut(out, Math.min(this.fade, tail, out.length));
    return { ...(start ? { start } : {}), ...(out ? { out } : {}), tailSeconds: tail / this.rate };
  }

  private scanFrame(n: number): void {
    const from = this.scanned - this.base;
    let sum = 0;
    for (let i = from; i < from + n; i++) sum += this.buf[i] * this.buf[i];
    if (Math.sqrt(sum / n) > this.threshold) {
      if (this.speechStart < 0) {
        this.speechStart = this.scanned;
        this.released = Math.max(this.base, this.scanned - this.lead);
      }
      this.speechEnd = Math.min(this.total, this.scanned + n);
    }
    this.scanned += n;
  }

  private startInfo(): LiveTrimStart {
    return { leadSeconds: (this.speechStart - this.released) / this.rate, cut: this.released };
  }

  /** Hands out [released, upTo), fading in the lead margin the first time. */
  private take(upTo: number): Float32Array | undefined {
    if (upTo <= this.released) return undefined;
    const out = this.buf.slice(this.released - this.base, upTo - this.base);
    if (!this.fadedIn) {
      this.fadedIn = true;
      fadeIn(out, Math.min(this.fade, this.speechStart - this.released));
    }
    this.released = upTo;
    this.dropBefore(upTo);
    return out;
  }

  private append(x: Float32Array): void {
    const used = this.total - this.base;
    if (used + x.length > this.buf.length) {
      const grown = new Float32Array(Math.max(this.buf.length * 2, used + x.length));
      grown.set(this.buf.subarray(0, used));
      this.buf = grown;
    }
    this.buf.set(x, used);
    this.total += x.length;
  }

  private dropBefore(at: number): void {
    const n = at - this.base;
    if (n <= 0) return;
    this.buf.copyWithin(0, n, this.total - this.base);
    this.base = at;
  }
}

/** Raised-cosine fade over the first n samples, in place. */
function fadeIn(x: Float32Array, n: number): void {
  for (let i = 0; i < n; i++) x[i] *= 0.5 - 0.5 * Math.cos((Math.PI * i) / n);
}

/** Raised-cosine fade over the last n samples, in place. */
function fadeOut(x: Float32Array, n: number): void {
  for (let i = 0; i < n; i++) x[x.length - 1 - i] *= 0.5 - 0.5 * Math.cos((Math.PI * i) / n);
}
