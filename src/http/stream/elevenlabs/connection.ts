import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { WebSocket } from 'ws';
import { AppError, errorReport, type ErrorCode } from '../../../errors.ts';
import {
  ElevenLabsClientMessage,
  type ElevenLabsServerMessage,
  type ElevenLabsStreamAlignment,
} from '../../../schemas/elevenlabs-stream.ts';
import { InputStream, type InputStreamOptions, type SentenceWork, type StreamVoice } from '../../../speech/input-stream.ts';
import type { SpeechCaller } from '../../../speech/speech-service.ts';
import type { EncodeFormat } from '../../../audio/encoders/index.ts';
import { enforceApiLimit } from '../../plugins/rate-limit.ts';
import { speechCaller } from '../../speech-reply.ts';
import type { Principal } from '../../types.ts';
import { UtteranceAligner } from './alignment.ts';
import { closeSocket } from '../close.ts';

/** What one socket is set to when it opens (from its path and query). */
export interface ElevenLabsSocketSettings {
  /** stream-input: one context, ended by an empty text; multi-stream-input: contexts by id. */
  multi: boolean;
  voiceId: string;
  format: EncodeFormat;
  output: NonNullable<InputStreamOptions['output']>;
  inactivityMs: number;
  maxContexts: number;
  /** Audio the socket may hold unsent before synthesis waits for the client. */
  maxBufferedBytes: number;
  /** How long a client may leave that buffer full before it is dropped. */
  stallTimeoutMs: number;
  pingIntervalMs: number;
}

/** The key and checks a socket authenticates with when it opened without one (the key then comes in the first message). */
export interface ElevenLabsAuth {
  /** Resolves a key sent in a message; throws the catalogue's error for a bad key or a missing scope. */
  authenticate(key: string): Promise<Principal>;
  /** Called once the socket has a principal (to close it when the key is revoked). */
  onPrincipal(principal: Principal): void;
  /** Throws voice_not_found when the path's voice is not one the caller may use. */
  checkVoice(principal: Principal): Promise<void>;
}

interface Context {
  /** The key in the map: the client's id, '' for the default context. */
  key: string;
  /** What replies carry as contextId (multi-stream-input only). */
  replyId?: string;
  input: InputStream;
  aligner: UtteranceAligner;
  /** Jobs of this context queued or running. */
  jobs: number;
  /** Text received since the last flush, not all spoken. */
  unflushed: boolean;
  lastUsed: number;
}

type Job =
  | { kind: 'sentence'; context: Context; work: SentenceWork; abort: AbortController }
  /** The end of an utterance: the characters left unaligned go out. */
  | { kind: 'end'; context: Context; abort: AbortController }
  /** The context is over: its isFinal (and, on stream-input, the socket's close). */
  | { kind: 'final'; context: Context; abort: AbortController }
  /** close_socket: every context before it is spoken; then the socket closes. */
  | { kind: 'close'; abort: AbortController };

/** Their close code for an error: 1011 for ours, 1013 when it may pass, 1008 (policy) for the rest. */
function closeCodeOf(code: ErrorCode): number {
  if (code === 'internal') return 1011;
  if (code === 'busy' || code === 'unavailable') return 1013;
  return 1008;
}

/** Key fields ElevenLabs' clients send in a first message. */
function keyIn(message: ElevenLabsClientMessage): string | null {
  const value = message['xi-api-key'] ?? message.xi_api_key ?? message.authorization;
  if (value === undefined) return null;
  return value.replace(/^Bearer\s+/i, '').trim();
}

/**
 * One ElevenLabs socket. Text pieces go through the same input streams as our own WebSocket's contexts (sentences
 * spoken as they complete, through the speech service, so limits, the fair queue and usage apply to each), and one
 * synthesis runs at a time per socket: the sentences of all contexts wait in one queue in the order they became
 * ready, so contexts alternate between sentences, never inside one.
 */
export class ElevenLabsConnection {
  private readonly queue: Job[] = [];
  private current: Job | null = null;
  private readonly contexts = new Map<string, Context>();
  private closed = false;
  private alive = true;
  /** stream-input: the empty text came; nothing more is read. */
  private ended = false;
  private idle: NodeJS.Timeout | undefined;
  private readonly heartbeat: NodeJS.Timeout;
  /** Messages are handled one after another: the first may wait for its key and voice to be checked. */
  private inbox: Promise<void> = Promise.resolve();
  private voiceChecked = false;

  constructor(
    private readonly app: FastifyInstance,
    private readonly socket: WebSocket,
    private principal: Principal | null,
    private readonly ip: string,
    private readonly log: FastifyBaseLogger,
    private readonly settings: ElevenLabsSocketSettings,
    private readonly auth: ElevenLabsAuth,
  ) {
    socket.on('message', (data, isBinary) => {
      const text = isBinary ? null : data.toString();
      this.inbox = this.inbox.then(() => this.onMessage(text));
    });
    socket.on('pong', () => (this.alive = true));
    socket.on('close', () => this.shutdown());
    socket.on('error', () => this.shutdown());
    this.heartbeat = setInterval(() => this.ping(), settings.pingIntervalMs);
    this.heartbeat.unref();
    this.armIdle();
  }

  /** Ends the socket with a reason (revoked key, shutdown). */
  close(code: number, reason: string): void {
    if (this.closed) return;
    this.shutdown();
    closeSocket(this.socket, code, reason);
  }

  private shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.idle);
    this.current?.abort.abort();
    for (const job of this.queue.splice(0)) job.abort.abort();
    this.contexts.clear();
  }

  private ping(): void {
    if (!this.alive) {
      this.log.info('elevenlabs stream client missed a pong; dropping it');
      this.socket.terminate();
      this.shutdown();
      return;
    }
    this.alive = false;
    this.socket.ping();
  }

  /** Closes the socket after the inactivity timeout, counted while nothing is queued or being spoken. */
  private armIdle(): void {
    clearTimeout(this.idle);
    if (this.closed || this.current || this.queue.length > 0) return;
    this.idle = setTimeout(() => {
      const seconds = this.settings.inactivityMs / 1000;
      this.fail(
        new AppError(
          'request_timeout',
          `No text came within the inactivity timeout of ${seconds} s; send text (or " " to keep the socket open), or "" when done`,
        ),
        undefined,
        'input_timeout_exceeded',
      );
    }, this.settings.inactivityMs);
    this.idle.unref();
  }

  private send(message: ElevenLabsServerMessage): void {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(JSON.stringify(message));
    // A client that sends and never reads piles answers up (each close_context has one): far past the bound, it goes.
    if (this.socket.bufferedAmount > 4 * this.settings.maxBufferedBytes) {
      this.log.info('elevenlabs stream client takes none of its replies; dropping it');
      this.socket.terminate();
      this.shutdown();
    }
  }

  /**
   * An error in their shape. On stream-input, and for what concerns the socket rather than one context, the
   * socket then closes with the same code and the message as its reason; on multi-stream-input a context's
   * failure ends only that context.
   */
  private fail(err: unknown, context?: Context, name?: string): void {
    const { body, internal } = errorReport(err, 'synthesis failed');
    if (internal) this.log.error({ err }, 'elevenlabs stream failed');
    const code = closeCodeOf(body.code);
    const contextId = context?.replyId;
    this.send({ message: body.error, error: name ?? body.code, code, ...(contextId !== undefined ? { contextId } : {}) });
    if (context && this.settings.multi) return this.forget(context);
    this.close(code, body.error);
  }

  private async onMessage(data: string | null): Promise<void> {
    if (this.closed || this.ended) return;
    this.armIdle();
    const parsed = parse(data);
    if (typeof parsed === 'string') return this.fail(new AppError('bad_request', parsed), undefined, 'invalid_input_message');
    const message = parsed;
    try {
      if (!this.principal) {
        const key = keyIn(message);
        if (key === null) {
          throw new AppError('unauthorized', 'Send the API key in the xi-api-key header, the authorization query or the first message');
        }
        this.principal = await this.auth.authenticate(key);
        this.auth.onPrincipal(this.principal);
      }
      if (!this.voiceChecked) {
        await this.auth.checkVoice(this.principal);
        this.voiceChecked = true;
      }
    } catch (err) {
      return this.fail(err);
    }
    if (this.closed) return;
    try {
      if (this.settings.multi) this.onMulti(message);
      else this.onSingle(message);
    } catch (err) {
      this.fail(err);
    }
  }

  private onSingle(message: ElevenLabsClientMessage): void {
    let context = this.contexts.get('');
    if (!context) {
      // The opening: its text is a space, and it sets the voice for the socket.
      context = this.open('', undefined, message);
      this.addText(context, message.text ?? '', message.flush === true);
      return;
    }
    if (message.text === '') {
      this.ended = true;
      this.endUtterance(context);
      this.enqueue({ kind: 'final', context, abort: new AbortController() });
      return;
    }
    this.addText(context, message.text ?? '', message.flush === true);
  }

  private onMulti(message: ElevenLabsClientMessage): void {
    if (message.close_socket === true) {
      for (const context of this.contexts.values()) {
        this.endUtterance(context);
        this.enqueue({ kind: 'final', context, abort: new AbortController() });
      }
      this.contexts.clear();
      this.ended = true;
      this.enqueue({ kind: 'close', abort: new AbortController() });
      return;
    }
    const replyId = message.context_id ?? message.contextId;
    const key = replyId ?? '';
    let context = this.contexts.get(key);
    if (message.close_context === true) {
      if (context) this.closeContext(context);
      // A context never opened (or already closed) is closed: its final says so.
      else this.send({ isFinal: true, ...(replyId !== undefined ? { contextId: replyId } : {}) });
      return;
    }
    try {
      context ??= this.open(key, replyId, message);
    } catch (err) {
      const { body } = errorReport(err, 'could not open the context');
      this.send({
        message: body.error,
        error: body.code === 'rate_limited' ? 'max_active_conversations' : body.code,
        code: 1008,
        ...(replyId !== undefined ? { contextId: replyId } : {}),
      });
      return;
    }
    try {
      // An empty text without a flush only keeps the context alive.
      this.addText(context, message.text ?? '', message.flush === true);
    } catch (err) {
      this.fail(err, context);
    }
  }

  private open(key: string, replyId: string | undefined, first: ElevenLabsClientMessage): Context {
    if (this.contexts.size >= this.settings.maxContexts && !this.evictIdle()) {
      throw new AppError(
        'rate_limited',
        `At most ${this.settings.maxContexts} contexts may hold text or audio at once on one socket; close one (close_context) first`,
      );
    }
    const { settings } = this;
    const voice: StreamVoice = { voiceId: settings.voiceId, speed: first.voice_settings?.speed };
    const context: Context = {
      key,
      ...(replyId !== undefined ? { replyId } : {}),
      aligner: new UtteranceAligner(),
      jobs: 0,
      unflushed: false,
      lastUsed: Date.now(),
      input: new InputStream({
        speech: this.app.services.speech,
        door: 'elevenlabs',
        format: settings.format,
        output: settings.output,
        voice,
        maxChars: this.app.config.maxTextChars,
        tooLong: (wouldHold, limit) =>
          `The context would hold ${wouldHold} unspoken characters; the limit is ${limit} (MAX_TEXT_CHARS): flush, or end sentences`,
        payer: () => this.admit(),
      }),
    };
    this.contexts.set(key, context);
    return context;
  }

  /** Forgets the least recently used context that holds nothing; false when every one holds text or audio. */
  private evictIdle(): boolean {
    let oldest: Context | null = null;
    for (const c of this.contexts.values()) {
      if (c.jobs === 0 && !c.unflushed && (!oldest || c.lastUsed < oldest.lastUsed)) oldest = c;
    }
    if (!oldest) return false;
    this.contexts.delete(oldest.key);
    return true;
  }

  /** A piece of text; a flush then speaks what the context holds. The opening's single space is not text. */
  private addText(context: Context, text: string, flush: boolean): void {
    context.lastUsed = Date.now();
    const piece = text.trim() === '' && !context.unflushed ? '' : text;
    if (piece !== '') {
      const ready = context.input.push(piece);
      context.aligner.add(piece);
      context.unflushed = true;
      for (const work of ready) this.enqueue({ kind: 'sentence', context, work, abort: new AbortController() });
    }
    if (flush) this.endUtterance(context);
  }

  private endUtterance(context: Context): void {
    for (const work of context.input.flush()) this.enqueue({ kind: 'sentence', context, work, abort: new AbortController() });
    if (context.unflushed) this.enqueue({ kind: 'end', context, abort: new AbortController() });
    context.unflushed = false;
  }

  /**
   * close_context. A context whose text was flushed finishes speaking it (as theirs does) and then sends its isFinal;
   * one that was not (an interrupted reply) is dropped at once: what it holds, its waiting sentences and the one
   * being spoken (no audio of it follows), and its isFinal goes out now. Either way its id is free at once.
   */
  private closeContext(context: Context): void {
    this.contexts.delete(context.key);
    if (context.unflushed) {
      this.drop(context);
      this.send({ isFinal: true, ...(context.replyId !== undefined ? { contextId: context.replyId } : {}) });
      return;
    }
    this.enqueue({ kind: 'final', context, abort: new AbortController() });
  }

  /** Ends a context that failed: its jobs go, and it is forgotten. */
  private forget(context: Context): void {
    this.drop(context);
    if (this.contexts.get(context.key) === context) this.contexts.delete(context.key);
  }

  private drop(context: Context): void {
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const job = this.queue[i];
      if (job.kind !== 'close' && job.context === context) {
        job.abort.abort();
        this.queue.splice(i, 1);
        context.jobs--;
      }
    }
    if (this.current && this.current.kind !== 'close' && this.current.context === context) this.current.abort.abort();
    context.unflushed = false;
  }

  private enqueue(job: Job): void {
    if (job.kind !== 'close') job.context.jobs++;
    this.queue.push(job);
    clearTimeout(this.idle);
    if (!this.current) void this.drain();
  }

  private async drain(): Promise<void> {
    while (!this.closed && this.queue.length > 0) {
      const job = this.queue.shift() as Job;
      this.current = job;
      try {
        await this.run(job);
      } catch (err) {
        if (!this.closed && job.kind !== 'close') this.fail(err, job.context);
      } finally {
        if (job.kind !== 'close') job.context.jobs--;
        this.current = null;
      }
    }
    this.armIdle();
  }

  private async run(job: Job): Promise<void> {
    if (job.kind === 'close') return this.close(1000, 'close_socket');
    const { context } = job;
    const ref = context.replyId !== undefined ? { contextId: context.replyId } : {};
    if (job.kind === 'final') {
      this.send({ isFinal: true, ...ref });
      if (!this.settings.multi) this.close(1000, 'end of input');
      return;
    }
    if (job.kind === 'end') {
      const rest = context.aligner.end();
      if (rest) this.send({ audio: '', isFinal: null, ...this.alignment(rest), ...ref });
      return;
    }
    const { work, abort } = job;
    let started = false;
    await context.input.speak(work, abort.signal, {
      onChunk: async (chunk) => {
        if (!started) {
          context.aligner.start(work);
          started = true;
        }
        const alignment = context.aligner.chunk(chunk);
        if (chunk.bytes.length > 0 || alignment) {
          const audio = Buffer.from(chunk.bytes.buffer, chunk.bytes.byteOffset, chunk.bytes.byteLength).toString('base64');
          this.send({ audio, isFinal: null, ...(alignment ? this.alignment(alignment) : {}), ...ref });
        }
        await this.waitForRoom(abort.signal);
      },
    });
  }

  /** Text is aligned as written: normalizedAlignment is the same. */
  private alignment(a: ElevenLabsStreamAlignment): {
    alignment: ElevenLabsStreamAlignment;
    normalizedAlignment: ElevenLabsStreamAlignment;
  } {
    return { alignment: a, normalizedAlignment: a };
  }

  /** Who pays for the next sentence: null (and the socket closed) when the key was revoked. Each sentence counts against the rate limit. */
  private async admit(): Promise<SpeechCaller | null> {
    const { principal } = this;
    if (!principal) return null;
    if (principal.via === 'key' && !(await this.app.services.apiKeys.isActive(principal.keyId))) {
      this.close(1008, 'API key revoked');
      return null;
    }
    await enforceApiLimit(this.app, null, principal, this.ip);
    return speechCaller(principal);
  }

  /** Waits while the socket holds more than the bound; drops the client if it never catches up. */
  private async waitForRoom(signal: AbortSignal): Promise<void> {
    const started = Date.now();
    while (!this.closed && !signal.aborted && this.socket.bufferedAmount > this.settings.maxBufferedBytes) {
      if (Date.now() - started > this.settings.stallTimeoutMs) {
        this.log.info('elevenlabs stream client stopped reading; dropping it');
        this.socket.terminate();
        this.shutdown();
        return;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

const checkMessage = TypeCompiler.Compile(ElevenLabsClientMessage);

/** A client frame checked against the schema, or what is wrong with it. */
function parse(data: string | null): ElevenLabsClientMessage | string {
  if (data === null) return 'Send JSON text frames, not binary ones';
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return 'The message is not JSON; send a JSON object as the protocol describes';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'The message must be a JSON object';
  if (checkMessage.Check(value)) return value;
  const first = checkMessage.Errors(value).First();
  const field = first?.path ? first.path.slice(1).replace(/\//g, '.') : 'message';
  return `${field}: ${first?.message ?? 'is invalid'}`;
}
