import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { AppError, errorReport } from '../../errors.ts';
import { STREAM_FORMAT, STREAM_SAMPLE_RATE, type WordTiming } from '../../schemas/speech.ts';
import { STREAM_BYTES_PER_SAMPLE, type SynthesizeMessage } from '../../schemas/stream.ts';
import type { SpeechCaller } from '../../speech/speech-service.ts';
import type { SpeechChunk } from '../../synth/speech.ts';
import { enforceApiLimit } from '../plugins/rate-limit.ts';
import { speechCaller, WRITE_STALL_MS } from '../speech-reply.ts';
import type { Principal } from '../types.ts';
import { InputContext, type SentenceWork } from './contexts.ts';
import { parseClientMessage, type MessageRef, type ServerMessage } from './messages.ts';
import { closeSocket } from './close.ts';

export interface StreamLimits {
  /** Audio the socket may hold unsent before synthesis pauses. */
  maxBufferedBytes: number;
  /** How long a client may leave that buffer full before it is dropped. */
  stallTimeoutMs: number;
  /** Requests waiting behind the current one. */
  maxQueued: number;
  /** Input-streaming contexts open at once on one connection. */
  maxContexts: number;
  /** Ping interval; a client that misses a pong by the next ping is dropped. */
  pingIntervalMs: number;
  /** Close a connection with nothing to do for this long. */
  idleTimeoutMs: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  maxBufferedBytes: 1 << 20,
  // A client that reads nothing for 10 s is gone or hostile; its synthesis slot is worth more to others.
  stallTimeoutMs: WRITE_STALL_MS,
  maxQueued: 16,
  // A voice agent holds one context per turn and a few more while barge-ins are cancelled.
  maxContexts: 8,
  pingIntervalMs: 30_000,
  idleTimeoutMs: 300_000,
};

/** A whole request (no context_id). */
interface RequestJob {
  kind: 'request';
  id?: string;
  message: SynthesizeMessage;
  abort: AbortController;
}

/** One complete sentence of a context. */
interface SentenceJob {
  kind: 'sentence';
  context: InputContext;
  work: SentenceWork;
  abort: AbortController;
}

/** The end of a context's utterance: its done goes out once the sentences before it are spoken. */
interface DoneJob {
  kind: 'done';
  context: InputContext;
  abort: AbortController;
}

type Job = RequestJob | SentenceJob | DoneJob;

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** A sentence's word timings moved onto its utterance: by the audio before it and by the sentence's place in the text. */
function shiftWords(words: readonly WordTiming[], seconds: number, offset: number): WordTiming[] {
  return words.map((w) => ({ ...w, start: round3(w.start + seconds), end: round3(w.end + seconds), offset: w.offset + offset }));
}

function base64(chunk: SpeechChunk): string {
  return Buffer.from(chunk.bytes.buffer, chunk.bytes.byteOffset, chunk.bytes.byteLength).toString('base64');
}

/**
 * One client connection. One synthesis runs at a time: whole requests and the complete sentences of input
 * streaming contexts wait in one queue, in the order they became ready, and each is streamed chunk by chunk as
 * the worker produces it. So the audio of two contexts may alternate between sentences, never inside one, and
 * every message says whose it is. Reading from the synthesizer only while the socket's buffer is small is what
 * bounds memory for a client that stops reading: the worker itself pauses when its output is not taken.
 */
export class StreamConnection {
  private readonly queue: Job[] = [];
  private current: Job | null = null;
  private readonly contexts = new Map<string, InputContext>();
  private closed = false;
  private alive = true;
  private lastActivity = Date.now();
  private readonly timer: NodeJS.Timeout;
  /** Watches a send buffer over the bound (see watchBackpressure); undefined while it is under. */
  private backpressure: NodeJS.Timeout | undefined;

  constructor(
    private readonly app: FastifyInstance,
    private readonly socket: WebSocket,
    private readonly principal: Principal,
    private readonly ip: string,
    private readonly log: FastifyBaseLogger,
    private readonly limits: StreamLimits = DEFAULT_STREAM_LIMITS,
  ) {
    socket.on('message', (data, isBinary) => this.onMessage(isBinary ? null : data.toString()));
    socket.on('pong', () => (this.alive = true));
    socket.on('close', () => this.shutdown());
    socket.on('error', () => this.shutdown());
    this.timer = setInterval(() => this.heartbeat(), limits.pingIntervalMs);
    this.timer.unref();
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.shutdown();
    closeSocket(this.socket, code, reason);
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
      this.log.info('stream client missed a pong; dropping it');
      this.socket.terminate();
      return;
    }
    if (!this.current && this.queue.length === 0 && Date.now() - this.lastActivity > this.limits.idleTimeoutMs) {
      this.close(1000, 'idle timeout');
      return;
    }
    this.alive = false;
    this.socket.ping();
  }

  private send(message: ServerMessage): void {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(JSON.stringify(message));
    this.watchBackpressure();
  }

  /**
   * A client that sends and never reads piles replies up in the send buffer, synthesis or not (a flood of
   * `flush` or `cancel`, each answered). Over the bound the buffer is watched: its messages are no longer read (TCP
   * pushes back on it) until it has taken what it was sent, and if it takes nothing for the stall timeout it is
   * dropped, as a synthesis waiting for room drops it. While audio is sent the buffer sits near the bound
   * (waitForRoom), so reading stops only at twice it then: a client that reads, however slowly, can still cancel.
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
          this.log.info({ buffered }, 'stream client takes none of its replies; dropping it');
          this.socket.terminate();
          this.shutdown();
        }
      },
      Math.min(100, stallTimeoutMs),
    );
    this.backpressure.unref();
  }

  private sendError(err: unknown, ref: MessageRef): void {
    const { body, retryAfter, internal } = errorReport(err, 'synthesis failed');
    if (internal) this.log.error({ err }, 'stream request failed');
    this.send({ type: 'error', ...body, ...ref, ...(retryAfter !== undefined ? { retry_after: retryAfter } : {}) });
  }

  private onMessage(data: string | null): void {
    this.lastActivity = Date.now();
    if (data === null) return this.send({ type: 'error', error: 'send JSON text frames, not binary', code: 'bad_request' });
    const parsed = parseClientMessage(data);
    if (!parsed.ok) {
      const { ok: _ok, ...error } = parsed;
      return this.send({ type: 'error', ...error });
    }
    const message = parsed.message;
    if (message.type === 'flush') return this.flushContext(message.context_id);
    if (message.type === 'cancel') {
      return message.context_id !== undefined ? this.cancelContext(message.context_id) : this.cancelRequest(message.id);
    }
    if (message.context_id !== undefined) return this.addPiece(message.context_id, message);
    const id = message.id;
    if (this.queue.filter((j) => j.kind === 'request').length >= this.limits.maxQueued) {
      this.app.services.metrics.rateLimited('stream-queue');
      return this.send({
        type: 'error',
        error: `at most ${this.limits.maxQueued} requests may wait on one connection`,
        code: 'rate_limited',
        ...(id ? { id } : {}),
      });
    }
    this.enqueue({ kind: 'request', id, message, abort: new AbortController() });
  }

  private enqueue(job: Job): void {
    this.queue.push(job);
    if (!this.current) void this.drain();
  }

  private enqueueSentences(context: InputContext, sentences: SentenceWork[]): void {
    for (const work of sentences) this.enqueue({ kind: 'sentence', context, work, abort: new AbortController() });
  }

  /** A piece of a context's text: complete sentences go out now, the rest waits for more (or a flush). */
  private addPiece(contextId: string, message: SynthesizeMessage): void {
    try {
      let context = this.contexts.get(contextId);
      if (context?.ending) {
        throw new AppError(
          'validation',
          `context "${contextId}" has had its last piece (continue: false); wait for its done or use a new context_id`,
        );
      }
      context?.checkSameVoice(message);
      const opening = context === undefined;
      if (!context) {
        if (this.contexts.size >= this.limits.maxContexts) {
          throw new AppError(
            'rate_limited',
            `at most ${this.limits.maxContexts} contexts may be open on one connection; end one (continue: false) or cancel it`,
          );
        }
        context = new InputContext(contextId, message, {
          speech: this.app.services.speech,
          door: 'stream',
          format: STREAM_FORMAT,
          maxChars: this.app.config.maxTextChars,
          payer: () => this.admit(),
        });
      }
      const ready = context.input.push(message.text);
      if (opening) this.contexts.set(contextId, context);
      this.enqueueSentences(context, ready);
      if (message.continue !== true) {
        context.ending = true;
        this.endUtterance(context);
      }
    } catch (err) {
      this.sendError(err, { context_id: contextId });
    }
  }

  /** Speaks what the context holds, then its done. A context that is not open has nothing to say: done at once. */
  private flushContext(contextId: string): void {
    const context = this.contexts.get(contextId);
    if (!context) return this.send({ type: 'done', context_id: contextId, samples: 0, seconds: 0 });
    // A context that had its last piece is already being finished; its done answers this flush too.
    if (!context.ending) this.endUtterance(context);
  }

  private endUtterance(context: InputContext): void {
    this.enqueueSentences(context, context.input.flush());
    this.enqueue({ kind: 'done', context, abort: new AbortController() });
  }

  /**
   * Drops everything of the context (its unsplit text, its waiting sentences, the one in synthesis) and answers
   * with its done at once. Sending happens on this one thread, and a running sentence checks its abort signal
   * before each message, so no audio of the context follows this answer.
   */
  private cancelContext(contextId: string): void {
    const context = this.contexts.get(contextId);
    const samples = context?.samples ?? 0;
    if (context) {
      this.contexts.delete(contextId);
      this.dropJobs(context);
      if (this.current?.kind !== 'request' && this.current?.context === context) this.current.abort.abort();
    }
    this.send({ type: 'done', context_id: contextId, samples, seconds: samples / STREAM_SAMPLE_RATE, cancelled: true });
  }

  private dropJobs(context: InputContext): void {
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const job = this.queue[i];
      if (job.kind !== 'request' && job.context === context) {
        job.abort.abort();
        this.queue.splice(i, 1);
      }
    }
  }

  /** A whole request: the one with this id (waiting or running), or the running one. */
  private cancelRequest(id?: string): void {
    const current = this.current?.kind === 'request' ? this.current : null;
    if (id !== undefined && current?.id !== id) {
      const i = this.queue.findIndex((j) => j.kind === 'request' && j.id === id);
      if (i >= 0) {
        this.queue.splice(i, 1);
        this.send({ type: 'done', id, samples: 0, seconds: 0, cancelled: true });
      }
      return;
    }
    current?.abort.abort();
  }

  private async drain(): Promise<void> {
    while (!this.closed && this.queue.length > 0) {
      const job = this.queue.shift() as Job;
      this.current = job;
      try {
        if (job.kind === 'request') await this.runRequest(job);
        else if (job.kind === 'sentence') await this.runSentence(job);
        else this.finishUtterance(job.context);
      } catch (err) {
        if (this.closed) continue;
        if (job.kind === 'request') {
          this.sendError(err, job.id ? { id: job.id } : {});
        } else {
          // A failed sentence ends its context: the rest would fail alike or leave a hole in the speech.
          this.sendError(err, { context_id: job.context.id });
          this.dropJobs(job.context);
          if (this.contexts.get(job.context.id) === job.context) this.contexts.delete(job.context.id);
        }
      } finally {
        this.current = null;
        this.lastActivity = Date.now();
      }
    }
  }

  /** False (and the connection closed) when the key was revoked: the database is the truth, even if the event was lost. */
  private async credentialHolds(): Promise<boolean> {
    const { app, principal } = this;
    if (principal.via === 'key' && !(await app.services.apiKeys.isActive(principal.keyId))) {
      this.close(1008, 'API key revoked');
      return false;
    }
    return true;
  }

  /**
   * Who pays for the next request or sentence, asked before each: null (and the connection closed) when the key
   * was revoked. Each sentence of a context counts against the rate limit as a request would: a context that is
   * never flushed is otherwise an unlimited stream of them.
   */
  private async admit(): Promise<SpeechCaller | null> {
    if (!(await this.credentialHolds())) return null;
    await enforceApiLimit(this.app, null, this.principal, this.ip);
    return speechCaller(this.principal);
  }

  /** One chunk as an audio message, its words and marks moved by `shift` onto an utterance; returns its samples. */
  private sendAudio(chunk: SpeechChunk, ref: MessageRef, shift?: { seconds: number; offset: number }): number {
    const samples = chunk.bytes.length / STREAM_BYTES_PER_SAMPLE;
    if (samples > 0) {
      const words =
        chunk.words && chunk.words.length > 0 ? { words: shift ? shiftWords(chunk.words, shift.seconds, shift.offset) : chunk.words } : {};
      const marks =
        chunk.marks && chunk.marks.length > 0
          ? { marks: shift ? chunk.marks.map((m) => ({ ...m, time: round3(m.time + shift.seconds) })) : chunk.marks }
          : {};
      this.send({ type: 'audio', audio: base64(chunk), ...ref, ...words, ...marks });
    }
    return samples;
  }

  private async runRequest(job: RequestJob): Promise<void> {
    const caller = await this.admit();
    if (!caller) return;
    const m = job.message;
    const { signal } = job.abort;
    let samples = 0;
    const idPart = job.id ? { id: job.id } : {};
    try {
      // Inside the try: a cancel that lands before the first chunk is a cancelled request, not a failure.
      const speech = await this.app.services.speech.speak(
        caller,
        {
          text: m.text,
          voiceId: m.voice_id,
          speed: m.speed,
          engine: m.engine,
          format: STREAM_FORMAT,
          door: 'stream',
          lexicons: m.lexicons,
          onQueued: (position) => this.send({ type: 'queued', position, ...idPart }),
        },
        signal,
      );
      for await (const chunk of speech.chunks) {
        samples += this.sendAudio(chunk, idPart);
        await this.waitForRoom(signal);
      }
    } catch (err) {
      if (!signal.aborted) throw err;
    }
    if (this.closed) return;
    const cancelled = signal.aborted;
    // Usage was recorded by the speech service once the last chunk was taken (a cancelled request is not counted).
    this.send({ type: 'done', ...idPart, samples, seconds: samples / STREAM_SAMPLE_RATE, ...(cancelled ? { cancelled: true } : {}) });
  }

  /**
   * One sentence of a context, spoken by its input stream; a cancel answered on this thread is never followed by
   * this context's audio (the stream checks the signal before every chunk).
   */
  private async runSentence(job: SentenceJob): Promise<void> {
    const { context, work, abort } = job;
    const ref = { context_id: context.id };
    const shift = { seconds: context.samples / STREAM_SAMPLE_RATE, offset: work.offset };
    await context.input.speak(work, abort.signal, {
      onQueued: (position) => this.send({ type: 'queued', position, ...ref }),
      onStart: () => {
        shift.seconds = context.samples / STREAM_SAMPLE_RATE;
      },
      onChunk: async (chunk) => {
        context.samples += this.sendAudio(chunk, ref, shift);
        await this.waitForRoom(abort.signal);
      },
    });
  }

  private finishUtterance(context: InputContext): void {
    const { samples } = context;
    this.send({ type: 'done', context_id: context.id, samples, seconds: samples / STREAM_SAMPLE_RATE });
    context.endUtterance();
    if (context.ending && this.contexts.get(context.id) === context) this.contexts.delete(context.id);
  }

  /** Waits while the socket holds more than the bound; drops the client if it never catches up. */
  private async waitForRoom(signal: AbortSignal): Promise<void> {
    const started = Date.now();
    while (!this.closed && !signal.aborted && this.socket.bufferedAmount > this.limits.maxBufferedBytes) {
      if (Date.now() - started > this.limits.stallTimeoutMs) {
        this.log.info('stream client stopped reading; dropping it');
        this.socket.terminate();
        this.shutdown();
        return;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}
