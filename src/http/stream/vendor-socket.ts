// The machinery behind the vendors' speech sockets (Cartesia's /tts/websocket, Deepgram's /v1/speak): contexts of
// text written piece by piece, each an InputStream on the one speech path, spoken sentence by sentence in one
// queue per connection, with the guards of our own WebSocket (frame size at the server, ping and idle timeout,
// send-buffer bound and write stall, per-sentence rate limit and a credential re-checked before each sentence).
// The protocols only parse their messages and frame the replies.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import type { EncodeFormat } from '../../audio/encoders/index.ts';
import { AppError } from '../../errors.ts';
import type { SpeechEndpoint } from '../../metrics/metrics.ts';
import type { WordTiming } from '../../schemas/speech.ts';
import { InputStream, type InputStreamOptions, type SentenceWork, type StreamVoice } from '../../speech/input-stream.ts';
import type { SpeechCaller } from '../../speech/speech-service.ts';
import type { SpeechChunk } from '../../synth/speech.ts';
import { enforceApiLimit } from '../plugins/rate-limit.ts';
import { speechCaller } from '../speech-reply.ts';
import type { Principal } from '../types.ts';
import { DEFAULT_STREAM_LIMITS, type StreamLimits } from './connection.ts';
import { closeSocket } from './close.ts';

export interface VendorSocketLimits extends Pick<StreamLimits, 'maxBufferedBytes' | 'stallTimeoutMs' | 'pingIntervalMs' | 'idleTimeoutMs'> {
  /** Contexts open at once on one socket (ElevenLabs caps theirs at 5; an agent's cancelled turns need room). */
  maxContexts: number;
  /** Flushes and ends waiting in the queue: each is answered, so a flood of them is refused rather than held. */
  maxMarks: number;
}

export const DEFAULT_VENDOR_LIMITS: VendorSocketLimits = {
  maxBufferedBytes: DEFAULT_STREAM_LIMITS.maxBufferedBytes,
  stallTimeoutMs: DEFAULT_STREAM_LIMITS.stallTimeoutMs,
  pingIntervalMs: DEFAULT_STREAM_LIMITS.pingIntervalMs,
  idleTimeoutMs: DEFAULT_STREAM_LIMITS.idleTimeoutMs,
  maxContexts: 64,
  maxMarks: 256,
};

/**
 * The limits of a vendor socket: ours, with the overrides given to our own WebSocket (tests shorten its timeouts)
 * applied alike, so every protective limit of /v1/ws/stream holds on these doors too.
 */
export function vendorLimits(overrides: Partial<StreamLimits> = {}): VendorSocketLimits {
  const { maxBufferedBytes, stallTimeoutMs, pingIntervalMs, idleTimeoutMs, maxContexts } = { ...DEFAULT_VENDOR_LIMITS, ...overrides };
  return { ...DEFAULT_VENDOR_LIMITS, maxBufferedBytes, stallTimeoutMs, pingIntervalMs, idleTimeoutMs, maxContexts };
}

/** What a context speaks with and in: fixed by its first message. */
export interface ContextSettings {
  voice: StreamVoice;
  format: EncodeFormat;
  output: NonNullable<InputStreamOptions['output']>;
}

/** One context: its text stream and the audio delivered so far (its words' timeline). */
export class VendorContext {
  /** Seconds of audio delivered in this context. */
  seconds = 0;
  /** Its last piece has come: it ends once what it holds is spoken. */
  ending = false;

  constructor(
    readonly id: string,
    readonly settings: ContextSettings,
    readonly input: InputStream,
  ) {}
}

/** What the protocol does with what the queue produces. */
export interface VendorFraming {
  /** One chunk of a context's audio, its words moved onto the context's timeline. */
  audio(context: VendorContext, chunk: SpeechChunk, words: WordTiming[]): void;
  /** A context failed (a sentence could not be spoken); the context is gone, the socket stays. */
  failed(contextId: string, err: unknown): void;
}

interface SentenceJob {
  kind: 'sentence';
  context: VendorContext;
  work: SentenceWork;
  abort: AbortController;
}

/** An answer that goes out once everything queued before it for its context is spoken (flush_done, done, Flushed). */
interface MarkJob {
  kind: 'mark';
  /** The context it answers for (dropped with it); none for the socket's own (Deepgram's Close). */
  context?: VendorContext;
  run: () => void;
  abort: AbortController;
}

type Job = SentenceJob | MarkJob;

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

export class VendorSocket {
  private readonly queue: Job[] = [];
  private current: Job | null = null;
  private readonly contexts = new Map<string, VendorContext>();
  private closed = false;
  private alive = true;
  private lastActivity = Date.now();
  private readonly timer: NodeJS.Timeout;
  private backpressure: NodeJS.Timeout | undefined;

  constructor(
    private readonly app: FastifyInstance,
    private readonly socket: WebSocket,
    private readonly principal: Principal,
    private readonly ip: string,
    private readonly log: FastifyBaseLogger,
    private readonly door: SpeechEndpoint,
    private readonly limits: VendorSocketLimits,
    private readonly framing: VendorFraming,
    onMessage: (text: string | null) => void,
  ) {
    socket.on('message', (data, isBinary) => {
      this.lastActivity = Date.now();
      onMessage(isBinary ? null : data.toString());
    });
    socket.on('pong', () => (this.alive = true));
    socket.on('close', () => this.shutdown());
    socket.on('error', () => this.shutdown());
    this.timer = setInterval(() => this.heartbeat(), limits.pingIntervalMs);
    this.timer.unref();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  context(id: string): VendorContext | undefined {
    return this.contexts.get(id);
  }

  /** Opens a context; refused (`rate_limited`) past the socket's bound. */
  open(id: string, settings: ContextSettings): VendorContext {
    if (this.contexts.size >= this.limits.maxContexts) {
      this.app.services.metrics.rateLimited('stream-contexts');
      throw new AppError('rate_limited', `at most ${this.limits.maxContexts} contexts may be open at once on one socket`);
    }
    const input = new InputStream({
      speech: this.app.services.speech,
      door: this.door,
      format: settings.format,
      voice: settings.voice,
      output: settings.output,
      maxChars: this.app.config.maxTextChars,
      tooLong: (wouldHold, limit) => `context "${id}" would hold ${wouldHold} unspoken characters; the limit is ${limit} (MAX_TEXT_CHARS)`,
      payer: () => this.admit(),
    });
    const context = new VendorContext(id, settings, input);
    this.contexts.set(id, context);
    this.checkVoice(context);
    return context;
  }

  /**
   * The voice and speed are checked as the context opens, so an unknown voice is told at once rather than when the
   * first sentence completes (which may be the last piece).
   */
  private checkVoice(context: VendorContext): void {
    const { voice, format } = context.settings;
    this.app.services.speech
      .prepareJob(speechCaller(this.principal), { voiceId: voice.voiceId, speed: voice.speed, format })
      .catch((err: unknown) => {
        if (this.contexts.get(context.id) !== context) return;
        this.cancel(context.id);
        this.framing.failed(context.id, err);
      });
  }

  /** A piece of a context's text: its complete sentences are queued (a piece past the budget is `text_too_long`). */
  push(context: VendorContext, piece: string): void {
    for (const work of context.input.push(piece)) this.enqueue({ kind: 'sentence', context, work, abort: new AbortController() });
  }

  /** Speaks what the context holds, complete sentence or not, then runs `then` in order. */
  flush(context: VendorContext, then: () => void): void {
    this.checkMarks();
    for (const work of context.input.flush()) this.enqueue({ kind: 'sentence', context, work, abort: new AbortController() });
    this.enqueue({ kind: 'mark', context, run: then, abort: new AbortController() });
  }

  /** The context's last piece has come: the rest is spoken, then `then` runs and the context is gone. */
  end(context: VendorContext, then: () => void): void {
    context.ending = true;
    this.flush(context, () => {
      if (this.contexts.get(context.id) === context) this.contexts.delete(context.id);
      then();
    });
  }

  /**
   * Drops a context at once: its text, its waiting sentences and the one in synthesis (which stops before its next
   * chunk: sending happens on this thread, so no audio of it follows). Its synthesis slot is freed by the abort.
   */
  cancel(contextId: string): boolean {
    const context = this.contexts.get(contextId);
    if (!context) return false;
    this.contexts.delete(contextId);
    for (let i = this.queue.length - 1; i >= 0; i--) {
      if (this.queue[i].context === context) this.queue.splice(i, 1)[0].abort.abort();
    }
    if (this.current?.context === context) this.current.abort.abort();
    return true;
  }

  /** Runs `then` once everything queued now is spoken (Deepgram's Close). */
  afterQueue(then: () => void): void {
    if (!this.current && this.queue.length === 0) return then();
    this.checkMarks();
    this.queue.push({ kind: 'mark', run: then, abort: new AbortController() });
  }

  sendJson(message: unknown): void {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(JSON.stringify(message));
    this.watchBackpressure();
  }

  sendBinary(bytes: Uint8Array): void {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(bytes, { binary: true });
    this.watchBackpressure();
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.shutdown();
    closeSocket(this.socket, code, reason);
  }

  private checkMarks(): void {
    if (this.queue.filter((j) => j.kind === 'mark').length >= this.limits.maxMarks) {
      this.app.services.metrics.rateLimited('stream-queue');
      throw new AppError('rate_limited', `at most ${this.limits.maxMarks} flushes may wait on one socket`);
    }
  }

  private enqueue(job: Job): void {
    this.queue.push(job);
    if (!this.current) void this.drain();
  }

  private async drain(): Promise<void> {
    while (!this.closed && this.queue.length > 0) {
      const job = this.queue.shift() as Job;
      this.current = job;
      try {
        if (job.kind === 'mark') job.run();
        else await this.speak(job);
      } catch (err) {
        if (this.closed || job.abort.signal.aborted) continue;
        if (!job.context) {
          this.log.error({ err }, 'speech socket answer failed');
          continue;
        }
        // A failed sentence ends its context: the rest would fail alike or leave a hole in the speech.
        this.cancel(job.context.id);
        this.framing.failed(job.context.id, err);
      } finally {
        this.current = null;
        this.lastActivity = Date.now();
      }
    }
  }

  private async speak(job: SentenceJob): Promise<void> {
    const { context, work, abort } = job;
    let shift = context.seconds;
    await context.input.speak(work, abort.signal, {
      onStart: () => {
        shift = context.seconds;
      },
      onChunk: async (chunk) => {
        const words = (chunk.words ?? []).map((w) => ({
          ...w,
          start: round3(w.start + shift),
          end: round3(w.end + shift),
          offset: w.offset + work.offset,
        }));
        context.seconds += chunk.seconds;
        this.framing.audio(context, chunk, words);
        await this.waitForRoom(abort.signal);
      },
    });
  }

  /**
   * Who pays for the next sentence: the key is re-checked (revoked: the socket closes) and each sentence counts
   * against the rate limit as a request would.
   */
  private async admit(): Promise<SpeechCaller | null> {
    const { app, principal } = this;
    if (principal.via === 'key' && !(await app.services.apiKeys.isActive(principal.keyId))) {
      this.close(1008, 'API key revoked');
      return null;
    }
    await enforceApiLimit(app, null, principal, this.ip);
    return speechCaller(principal);
  }

  private shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    clearInterval(this.backpressure);
    this.current?.abort.abort();
    for (const job of this.queue.splice(0)) job.abort.abort();
    this.contexts.clear();
  }

  private heartbeat(): void {
    if (!this.alive) {
      this.log.info('speech socket client missed a pong; dropping it');
      this.socket.terminate();
      this.shutdown();
      return;
    }
    if (!this.current && this.queue.length === 0 && Date.now() - this.lastActivity > this.limits.idleTimeoutMs) {
      this.close(1000, 'idle timeout');
      return;
    }
    this.alive = false;
    this.socket.ping();
  }

  /**
   * A client that sends and never reads piles answers up in the send buffer. Over the bound its messages are no
   * longer read (TCP pushes back) until it takes what it was sent; taking nothing for the stall timeout drops it.
   */
  private watchBackpressure(): void {
    const { maxBufferedBytes, stallTimeoutMs } = this.limits;
    const pauseAt = this.current ? 2 * maxBufferedBytes : maxBufferedBytes;
    if (this.socket.bufferedAmount > pauseAt && !this.socket.isPaused) this.socket.pause();
    if (this.backpressure || this.socket.bufferedAmount <= maxBufferedBytes) return;
    let last = this.socket.bufferedAmount;
    let progressAt = Date.now();
    this.backpressure = setInterval(
      () => {
        const buffered = this.socket.bufferedAmount;
        if (buffered <= maxBufferedBytes) {
          clearInterval(this.backpressure);
          this.backpressure = undefined;
          if (this.socket.isPaused) this.socket.resume();
          return;
        }
        if (buffered < last) progressAt = Date.now();
        last = buffered;
        if (Date.now() - progressAt > stallTimeoutMs) {
          this.log.info({ buffered }, 'speech socket client takes none of its replies; dropping it');
          this.socket.terminate();
          this.shutdown();
        }
      },
      Math.min(100, stallTimeoutMs),
    );
    this.backpressure.unref();
  }

  /** Waits while the socket holds more than the bound; drops the client if it never catches up. */
  private async waitForRoom(signal: AbortSignal): Promise<void> {
    const started = Date.now();
    while (!this.closed && !signal.aborted && this.socket.bufferedAmount > this.limits.maxBufferedBytes) {
      if (Date.now() - started > this.limits.stallTimeoutMs) {
        this.log.info('speech socket client stopped reading; dropping it');
        this.socket.terminate();
        this.shutdown();
        return;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}
