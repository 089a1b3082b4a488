// One piece from its engine to the output stream: cut down to its speech (live-trim.ts), given the pause its
// punctuation asks for, brought to the voice's level, its words placed on the output timeline. An engine that
// renders a whole sentence inside one synchronous call hands each chunk over as it exists (SynthesisOptions.stream),
// and while flow control allows, the chunk is encoded and sent from right there: the first audio of a sentence
// leaves while the rest of it renders, so sentences need not be cut short to start quickly.
import type { Engine, EngineChunk, EngineWord } from './engine.ts';
import { rateOf } from './engine.ts';
import { LiveTrim, type LiveTrimStart } from './live-trim.ts';
import type { OutputStream, RenderHooks } from './output-stream.ts';
import { marginsAt, PAUSE_SECONDS, START_SILENCE_SECONDS } from './shaping.ts';
import type { Break } from './text/index.ts';
import type { MappedText } from './text/mapped.ts';
import type { VoiceNoise } from './voice-noise.ts';
import type { VoiceSpec } from './voice-spec.ts';
import { timeWords } from './word-timing.ts';

/** One engine call: what to say, how, and what follows it (which sets the pause after it). */
export interface Piece {
  text: string;
  /** The text with the source span of each character, for word timings. */
  mapped: MappedText;
  break: Break;
  voice: VoiceSpec;
  /** Clamped speed (the request's times the run's prosody rate). */
  speed: number;
  /** Linear gain on top of the voice's loudness normalization (prosody volume). */
  volume: number;
}

/** How the last piece with speech ended: what the next one's pause depends on. */
export interface PieceEnd {
  break: Break;
  /** Seconds of silence margin it kept at its end. */
  tail: number;
}

export interface PieceOutput {
  out: OutputStream;
  hooks: RenderHooks;
  /** The request's text, which word timings point into. */
  source: string;
}

/** Speaks `piece` into `to.out` after `previous`; undefined when the piece held no speech. */
export async function speakPiece(
  to: PieceOutput,
  engine: Engine,
  piece: Piece,
  voice: { gain: number; noise: VoiceNoise },
  previous: PieceEnd | undefined,
): Promise<{ end: PieceEnd; rate: number } | undefined> {
  const { out, hooks } = to;
  const { gain, noise } = voice;
  const live = hooks.now !== undefined;
  if (live) await out.prepare(noise.rate);
  const aborted = (): boolean => hooks.signal?.aborted === true;

  let writer: PieceWriter | undefined;
  const queue: EngineChunk[] = [];
  const writerFor = (chunk: EngineChunk): PieceWriter =>
    (writer ??= new PieceWriter(
      to,
      piece,
      gain,
      previous,
      new LiveTrim(chunk.sampleRate, noise.threshold, marginsAt(previous?.break ?? 'start'), marginsAt(piece.break)),
    ));
  // From inside the engine's call: whatever flow control allows goes out at once, the rest waits in the queue.
  const sendNow = (): void => {
    while (queue.length > 0 && !aborted() && out.canWriteNow(queue[0].sampleRate)) {
      const chunk = queue.shift()!;
      for (const x of writerFor(chunk).take(chunk)) out.writeNow(x, chunk.sampleRate);
    }
  };
  const sendQueued = async (): Promise<void> => {
    while (queue.length > 0 && !aborted()) {
      const chunk = queue.shift()!;
      for (const x of writerFor(chunk).take(chunk)) await out.write(x, chunk.sampleRate);
    }
  };
  // An error thrown here would unwind through the engine's wasm frames: it is kept and thrown after the call.
  let failure: unknown;
  const stream = (chunk: EngineChunk): void => {
    if (aborted() || failure !== undefined) return;
    queue.push(chunk);
    try {
      sendNow();
    } catch (err) {
      failure = err;
    }
  };

  const options = { speed: piece.speed, signal: hooks.signal, checkpoint: hooks.checkpoint, ...(live ? { stream } : {}) };
  for await (const chunk of engine.synthesize(piece.text, piece.voice, options)) {
    queue.push(chunk);
    await sendQueued();
  }
  if (failure !== undefined) throw failure;
  if (aborted()) return undefined;
  await sendQueued();
  if (!writer || aborted()) return undefined;
  const last = writer.finish();
  for (const x of last.writes) await out.write(x, writer.rate);
  // Nothing stays held past the piece: the next one may come only after other requests' turns.
  await out.release();
  return last.spoke ? { end: { break: piece.break, tail: last.tailSeconds }, rate: writer.rate } : undefined;
}

/** Turns one piece's chunks into what the output stream takes, in order. */
class PieceWriter {
  private words: EngineWord[] = [];
  /** Word timings already handed to the output stream. */
  private committed = 0;
  private start: { at: number; cut: number } | undefined;
  private kept = 0;

  constructor(
    private readonly to: PieceOutput,
    private readonly piece: Piece,
    private readonly gain: number,
    private readonly previous: PieceEnd | undefined,
    private readonly trim: LiveTrim,
  ) {}

  get rate(): number {
    return this.trim.rate;
  }

  /** What to write for the next chunk (the pause before the speech first, when the speech starts in it). */
  take(chunk: EngineChunk): Float32Array[] {
    if (chunk.sampleRate !== this.rate)
      throw new Error(`an engine changed its rate within a piece (${this.rate} -> ${chunk.sampleRate} Hz)`);
    if (chunk.words) this.words.push(...chunk.words);
    const { start, out } = this.trim.push(chunk.samples);
    const writes = this.begin(start);
    if (out) writes.push(this.level(out));
    this.placeWords(false);
    return writes;
  }

  /** The engine is done: what is left to write, how much margin the piece kept at its end, and whether it spoke. */
  finish(): { writes: Float32Array[]; tailSeconds: number; spoke: boolean } {
    const { start, out, tailSeconds } = this.trim.end();
    const writes = this.begin(start);
    if (out) writes.push(this.level(out));
    this.placeWords(true);
    return { writes, tailSeconds, spoke: this.start !== undefined };
  }

  /** The pause before the speech: what the punctuation asks for, less the margins both pieces kept. */
  private begin(start: LiveTrimStart | undefined): Float32Array[] {
    if (!start) return [];
    const { previous, piece } = this;
    const gap =
      previous === undefined
        ? START_SILENCE_SECONDS
        : Math.max(0, PAUSE_SECONDS[previous.break] * pauseScale(piece) - previous.tail - start.leadSeconds);
    const pause = Math.max(0, Math.round(gap * this.rate));
    this.start = { at: this.to.out.inputSeconds + pause / this.rate, cut: start.cut };
    return pause > 0 ? [new Float32Array(pause)] : [];
  }

  private level(x: Float32Array): Float32Array {
    this.kept += x.length;
    const g = this.gain * this.piece.volume;
    for (let i = 0; i < x.length; i++) x[i] *= g;
    return x;
  }

  /**
   * Hands the output stream the word timings that can no longer change: every word but the last while the
   * piece renders (its end waits for the next word or the piece's end), all of them at the end.
   */
  private placeWords(final: boolean): void {
    if (!this.start || this.words.length === 0) return;
    const placement = {
      at: this.start.at,
      trimmed: this.start.cut / this.rate,
      duration: final ? this.kept / this.rate : Number.POSITIVE_INFINITY,
    };
    const timings = timeWords(this.words, this.piece.mapped, this.to.source, placement);
    const upTo = final ? timings.length : timings.length - 1;
    if (upTo > this.committed) this.to.out.addWords(timings.slice(this.committed, upTo));
    this.committed = Math.max(this.committed, upTo);
  }
}

/** Pauses follow the speaking rate, within reason: a 4x voice still needs to breathe. */
function pauseScale(piece: Piece): number {
  return 1 / Math.min(3, Math.max(0.5, rateOf(piece.voice, piece.speed)));
}
