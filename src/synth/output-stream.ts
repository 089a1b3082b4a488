// The back half of the pipeline for one request: audio at any engine rate in, encoded blocks out through
// hooks.emit, with the word timings and marks that fall in each block. Resampling to the encoder's rate, the level
// stage (true-peak limiter) and the encoder run here, block by block, so bytes leave as soon as a piece
// is rendered. The input rate may change between writes (a voice switch): the old resampler is flushed
// into the stream first, so the timeline stays exact.
import type { StreamEncoder } from '../audio/encoders/index.ts';
import { concatBytes } from '../audio/encoders/types.ts';
import type { Limiter } from '../audio/limiter.ts';
import { createResampler, type Resampler } from '../audio/resample.ts';
import { concatSamples } from '../audio/samples.ts';
import type { Turn } from './piece-turns.ts';
import type { MarkTiming, WordTiming } from './speech.ts';

/** Encoded output is made in blocks of at most this much audio, each sent as it is made unless held (below). */
export const BLOCK_SECONDS = 0.25;
/**
 * Audio written from inside a render goes to the host as it comes, a message per engine chunk (flite: ~8 per
 * second of audio); each message costs the worker, the main thread and the socket a call, ~5 % of a worker's CPU
 * on long texts. While the listener has at least HOLD_AHEAD_SECONDS of audio ahead of its playback, the
 * chunks are held until they make HOLD_SECONDS and go as one message; a request's first audio, and audio for a
 * listener with less ahead, go at once.
 */
export const HOLD_AHEAD_SECONDS = 2;
export const HOLD_SECONDS = 1;

export interface RenderHooks {
  signal?: AbortSignal;
  /** Lets the host process control messages while an engine runs synchronously. */
  checkpoint?: () => void;
  /**
   * Waits for this request's turn to render its next piece (a worker orders the requests it interleaves);
   * what it resolves with says who else waits for that piece.
   */
  turn?: () => Promise<Turn | void>;
  /**
   * Takes the next encoded bytes with the seconds of audio they complete and the words that start in
   * them (and the marks that fall in them); resolves when more may be produced (flow control). Bytes are
   * empty only in a final call that carries words, marks or seconds left over from a codec that had nothing to flush.
   */
  emit(bytes: Uint8Array, seconds: number, words: WordTiming[] | undefined, marks?: MarkTiming[]): Promise<void>;
  /**
   * A host that can send at once, from inside an engine's synchronous render (a worker posting to its port):
   * `ready` says whether flow control allows more now, `emit` takes what emit takes and returns when it is sent.
   */
  now?: {
    ready(): boolean;
    emit(bytes: Uint8Array, seconds: number, words: WordTiming[] | undefined, marks?: MarkTiming[]): void;
    /** Seconds of audio the listener has sent to it and not yet played (see HOLD_AHEAD_SECONDS). */
    ahead?(): number;
  };
}

/** One encoded block for emit: bytes, the seconds they complete, the words and marks that fall in them. */
type Emission = [bytes: Uint8Array, seconds: number, words: WordTiming[] | undefined, marks: MarkTiming[] | undefined];

export class OutputStream {
  private resampler: Resampler | undefined;
  /** Seconds of input written so far: the timeline word timings are placed on. */
  private inSeconds = 0;
  private outSamples = 0;
  private pendingSeconds = 0;
  private words: WordTiming[] = [];
  private marks: MarkTiming[] = [];
  private ended = false;
  private readonly outRate: number;
  /** Input writeNow held back (see HOLD_AHEAD_SECONDS), at the resampler's input rate. */
  private held: Float32Array[] = [];
  private heldSamples = 0;

  constructor(
    private readonly encoder: StreamEncoder,
    private readonly level: Limiter,
    private readonly hooks: RenderHooks,
  ) {
    this.outRate = encoder.sampleRate;
  }

  /** Where the next written sample lands on the output timeline, in seconds. */
  get inputSeconds(): number {
    return this.inSeconds;
  }

  /** Seconds of audio handed out so far. */
  get seconds(): number {
    return this.outSamples / this.outRate;
  }

  /** Words to report with the block their start falls in. */
  addWords(words: readonly WordTiming[]): void {
    this.words.push(...words);
  }

  /** Marks to report with the block their time falls in. */
  addMarks(marks: readonly MarkTiming[]): void {
    this.marks.push(...marks);
  }

  /** Appends samples at `rate` to the stream. */
  async write(x: Float32Array, rate: number): Promise<void> {
    await this.release();
    const resampler = await this.prepare(rate);
    this.inSeconds += x.length / rate;
    await this.sendAudio(this.level.process(resampler.process(x)));
  }

  /** Readies the stream for input at `rate` (what writeNow needs). */
  async prepare(rate: number): Promise<Resampler> {
    if (this.resampler && this.resampler.inRate !== rate) await this.release();
    if (this.resampler && this.resampler.inRate !== rate) await this.sendAudio(this.level.process(this.resampler.flush()));
    if (!this.resampler || this.resampler.inRate !== rate) this.resampler = await createResampler(rate, this.outRate);
    return this.resampler;
  }

  /** Whether writeNow can take samples at `rate` now: the host sends at once, flow control allows it, the rate is ready. */
  canWriteNow(rate: number): boolean {
    return this.resampler?.inRate === rate && this.hooks.now?.ready() === true;
  }

  /** write(), synchronously, through hooks.now; only after canWriteNow(rate) said yes. */
  writeNow(x: Float32Array, rate: number): void {
    const { resampler } = this;
    const now = this.hooks.now;
    if (resampler?.inRate !== rate || !now) throw new Error(`the output stream cannot take ${rate} Hz now`);
    this.inSeconds += x.length / rate;
    this.held.push(x);
    this.heldSamples += x.length;
    const hold = this.outSamples > 0 && this.heldSamples < rate * HOLD_SECONDS && (now.ahead?.() ?? 0) >= HOLD_AHEAD_SECONDS;
    if (hold) return;
    const blocks = [...this.encode(this.level.process(resampler.process(this.takeHeld())))];
    if (blocks.length > 0) now.emit(...joined(blocks));
  }

  /** Sends what writeNow held back; the piece's end calls it, and every other way in does first. */
  async release(): Promise<void> {
    if (this.heldSamples === 0 || !this.resampler) return;
    const blocks = [...this.encode(this.level.process(this.resampler.process(this.takeHeld())))];
    if (blocks.length > 0) await this.hooks.emit(...joined(blocks));
  }

  private takeHeld(): Float32Array {
    const x = concatSamples(this.held);
    this.held = [];
    this.heldSamples = 0;
    return x;
  }

  /** Flushes the resampler, the limiter and the codec; the last call to emit carries whatever is owed. */
  async end(): Promise<void> {
    await this.release();
    if (this.resampler) await this.sendAudio(this.level.process(this.resampler.flush()));
    await this.sendAudio(this.level.flush());
    this.ended = true;
    const last = this.encoder.end();
    const rest = this.words;
    const restMarks = this.marks;
    this.words = [];
    this.marks = [];
    if (last.length > 0 || this.pendingSeconds > 0 || rest.length > 0 || restMarks.length > 0) {
      await this.hooks.emit(last, this.pendingSeconds, rest.length > 0 ? rest : undefined, restMarks.length > 0 ? restMarks : undefined);
    }
  }

  /** Frees the resampler and the codec (whether or not the stream ended). */
  dispose(): void {
    this.held = [];
    this.heldSamples = 0;
    this.resampler?.dispose();
    if (this.ended) return;
    this.ended = true;
    try {
      this.encoder.end();
    } catch {
      // Only releasing the codec's memory; its output is not wanted.
    }
  }

  private async sendAudio(x: Float32Array): Promise<void> {
    for (const block of this.encode(x)) await this.hooks.emit(...block);
  }

  /** Encodes `x` block by block (lazily: one block per step, so an abort between blocks stops the rest). */
  private *encode(x: Float32Array): Generator<Emission> {
    const block = Math.round(this.outRate * BLOCK_SECONDS);
    for (let at = 0; at < x.length; at += block) {
      if (this.hooks.signal?.aborted) return;
      const part = x.subarray(at, Math.min(x.length, at + block));
      const emission = this.account(this.encoder.write(part), part.length);
      if (emission) yield emission;
    }
  }

  /** Counts the samples encoded; bytes to send come out with what is owed since the last send. */
  private account(bytes: Uint8Array, samples: number): Emission | undefined {
    this.outSamples += samples;
    this.pendingSeconds += samples / this.outRate;
    if (bytes.length === 0) return undefined;
    const now = this.outSamples / this.outRate + 1e-6;
    const due = this.words.filter((w) => w.start < now);
    this.words = this.words.filter((w) => w.start >= now);
    const dueMarks = this.marks.filter((m) => m.time < now);
    this.marks = this.marks.filter((m) => m.time >= now);
    const seconds = this.pendingSeconds;
    this.pendingSeconds = 0;
    return [bytes, seconds, due.length > 0 ? due : undefined, dueMarks.length > 0 ? dueMarks : undefined];
  }
}

/** Consecutive blocks as one emission. */
function joined(blocks: Emission[]): Emission {
  if (blocks.length === 1) return blocks[0];
  const words = blocks.flatMap((b) => b[2] ?? []);
  const marks = blocks.flatMap((b) => b[3] ?? []);
  return [
    concatBytes(blocks.map((b) => b[0])),
    blocks.reduce((n, b) => n + b[1], 0),
    words.length > 0 ? words : undefined,
    marks.length > 0 ? marks : undefined,
  ];
}
