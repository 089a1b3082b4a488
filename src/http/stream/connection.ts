import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { AppError } from '../../errors.ts';
import { STREAM_FORMAT, STREAM_SAMPLE_RATE } from '../../schemas/speech.ts';
import { STREAM_BYTES_PER_SAMPLE, type SynthesizeMessage } from '../../schemas/stream.ts';
import { enforceApiLimit } from '../plugins/rate-limit.ts';
import { speechCaller } from '../speech-reply.ts';
import type { Principal } from '../types.ts';
import { parseClientMessage, type ServerMessage } from './messages.ts';

export interface StreamLimits {
  /** Audio the socket may hold unsent before synthesis pauses. */
  maxBufferedBytes: number;
  /** How long a client may leave that buffer full before it is dropped. */
  stallTimeoutMs: number;
  /** Requests waiting behind the current one. */
  maxQueued: number;
  /** Ping interval; a client that misses a pong by the next ping is dropped. */
  pingIntervalMs: number;
  /** Close a connection with nothing to do for this long. */
  idleTimeoutMs: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  maxBufferedBytes: 1 << 20,
  // A client that reads nothing for 10 s is gone or hostile; its synthesis slot is worth more to others.
  stallTimeoutMs: 10_000,
  maxQueued: 16,
  pingIntervalMs: 30_000,
  idleTimeoutMs: 300_000,
};

interface Job {
  id?: string;
  message: SynthesizeMessage;
  abort: AbortController;
}

/**
 * One client connection: requests run one after another, each streamed chunk by chunk as the worker
 * produces it. Reading from the synthesizer only while the socket's buffer is small is what bounds memory
 * for a client that stops reading: the worker itself pauses when its output is not taken.
 */
export class StreamConnection {
  private readonly queue: Job[] = [];
  private current: Job | null = null;
  private closed = false;
  private alive = true;
  private lastActivity = Date.now();
  private readonly timer: NodeJS.Timeout;

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
    this.socket.close(code, reason);
  }

  private shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.current?.abort.abort();
    for (const job of this.queue.splice(0)) job.abort.abort();
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
    if (!this.closed && this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(message));
  }

  private sendError(err: unknown, id?: string): void {
    if (err instanceof AppError) {
      const retry = err.headers['Retry-After'];
      this.send({ type: 'error', error: err.message, code: err.code, ...(id ? { id } : {}), ...(retry ? { retry_after: Number(retry) } : {}) });
    } else {
      this.log.error({ err }, 'stream request failed');
      this.send({ type: 'error', error: 'synthesis failed', code: 'internal', ...(id ? { id } : {}) });
    }
  }

  private onMessage(data: string | null): void {
    this.lastActivity = Date.now();
    if (data === null) return this.send({ type: 'error', error: 'send JSON text frames, not binary', code: 'bad_request' });
    const parsed = parseClientMessage(data);
    if (!parsed.ok) return this.send({ type: 'error', error: parsed.error, code: parsed.code, ...(parsed.id ? { id: parsed.id } : {}) });
    const message = parsed.message;
    const id = message.id;
    if (message.type === 'cancel') return this.cancel(id);
    if (this.queue.length >= this.limits.maxQueued) {
      this.app.services.metrics.rateLimited('stream-queue');
      return this.send({ type: 'error', error: `at most ${this.limits.maxQueued} requests may wait on one connection`, code: 'rate_limited', ...(id ? { id } : {}) });
    }
    this.queue.push({ id, message, abort: new AbortController() });
    if (!this.current) void this.drain();
  }

  private cancel(id?: string): void {
    if (id !== undefined && this.current?.id !== id) {
      const i = this.queue.findIndex((j) => j.id === id);
      if (i >= 0) {
        this.queue.splice(i, 1);
        this.send({ type: 'done', id, samples: 0, seconds: 0, cancelled: true });
      }
      return;
    }
    this.current?.abort.abort();
  }

  private async drain(): Promise<void> {
    while (!this.closed && this.queue.length > 0) {
      const job = this.queue.shift() as Job;
      this.current = job;
      try {
        await this.run(job);
      } catch (err) {
        if (!this.closed) this.sendError(err, job.id);
      } finally {
        this.current = null;
        this.lastActivity = Date.now();
      }
    }
  }

  private async run(job: Job): Promise<void> {
    const { app, principal } = this;
    // The database is the truth: a key revoked while the event was lost still stops here.
    if (principal.via === 'key' && !(await app.services.apiKeys.isActive(principal.keyId))) {
      this.close(1008, 'API key revoked');
      return;
    }
    await enforceApiLimit(app, null, principal, this.ip);
    const m = job.message;
    let samples = 0;
    const idPart = job.id ? { id: job.id } : {};
    try {
      // Inside the try: a cancel that lands before the first chunk is a cancelled request, not a failure.
      const speech = await app.services.speech.speak(
        speechCaller(principal),
        { text: m.text, voiceId: m.voice_id, speed: m.speed, engine: m.engine, format: STREAM_FORMAT, door: 'stream' },
        job.abort.signal,
      );
      for await (const chunk of speech.chunks) {
        if (chunk.bytes.length > 0) {
          samples += chunk.bytes.length / STREAM_BYTES_PER_SAMPLE;
          this.send({
            type: 'audio',
            audio: Buffer.from(chunk.bytes.buffer, chunk.bytes.byteOffset, chunk.bytes.byteLength).toString('base64'),
            ...idPart,
            ...(chunk.words && chunk.words.length > 0 ? { words: chunk.words } : {}),
          });
        }
        await this.waitForRoom(job.abort.signal);
      }
    } catch (err) {
      if (!job.abort.signal.aborted) throw err;
    }
    if (this.closed) return;
    const cancelled = job.abort.signal.aborted;
    // Usage was recorded by the speech service once the last chunk was taken (a cancelled request is not counted).
    this.send({ type: 'done', ...idPart, samples, seconds: samples / STREAM_SAMPLE_RATE, ...(cancelled ? { cancelled: true } : {}) });
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
