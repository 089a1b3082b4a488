// One Cartesia /tts/websocket connection: their messages in, their replies out, on the shared VendorSocket.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { AppError, errorReport } from '../../../errors.ts';
import {
  CARTESIA_ENCODINGS,
  CartesiaCancel,
  CartesiaGeneration,
  type CartesiaEncoding,
  type CartesiaOutputFormat,
} from '../../../schemas/cartesia.ts';
import { ERRORS } from '../../../schemas/errors.ts';
import type { WordTiming } from '../../../schemas/speech.ts';
import type { SpeechChunk } from '../../../synth/speech.ts';
import type { Principal } from '../../types.ts';
import { VendorSocket, type ContextSettings, type VendorContext, type VendorSocketLimits } from '../vendor-socket.ts';
import { checkMessage } from '../vendor-messages.ts';

/** What a context remembers beside its speech: its replies' options and counters. */
interface CartesiaState {
  timestamps: boolean;
  /** The flush its audio belongs to: 1 until the first flush is done, then 2... (their `flush_id`). */
  flushId: number;
  /** When its last chunk went out (step_time is the time since). */
  lastAt: number;
}

/**
 * Cartesia's errors carry `error` (the message, as their API versions up to 2025 and LiveKit's plugin read it) and
 * `title`, `message`, `error_code` (as their newer SDKs read it), the HTTP status of the failure, and `done: true`:
 * the context is over, the socket is not.
 */
function errorMessage(err: unknown, contextId: string | undefined, log: FastifyBaseLogger): Record<string, unknown> {
  const { body, internal } = errorReport(err, 'synthesis failed');
  if (internal) log.error({ err }, 'Cartesia socket request failed');
  const status = err instanceof AppError ? err.status : ERRORS[body.code].status;
  return {
    type: 'error',
    ...(contextId !== undefined ? { context_id: contextId } : {}),
    status_code: status,
    done: true,
    error: body.error,
    title: body.code,
    message: body.error,
    error_code: body.code,
  };
}

export class CartesiaConnection {
  private readonly socket: VendorSocket;
  private readonly state = new WeakMap<VendorContext, CartesiaState>();

  constructor(
    private readonly app: FastifyInstance,
    ws: WebSocket,
    principal: Principal,
    ip: string,
    private readonly log: FastifyBaseLogger,
    limits: VendorSocketLimits,
  ) {
    this.socket = new VendorSocket(
      app,
      ws,
      principal,
      ip,
      log,
      'cartesia',
      limits,
      {
        audio: (context, chunk, words) => this.sendChunk(context, chunk, words),
        failed: (contextId, err) => this.socket.sendJson(errorMessage(err, contextId, log)),
      },
      (text) => this.onMessage(text),
    );
  }

  close(code: number, reason: string): void {
    this.socket.close(code, reason);
  }

  private onMessage(text: string | null): void {
    if (text === null) return this.refuse(new AppError('bad_request', 'send JSON text frames, not binary'));
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return this.refuse(new AppError('bad_request', 'message is not valid JSON'));
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return this.refuse(new AppError('bad_request', 'message must be a JSON object'));
    }
    const raw = value as Record<string, unknown>;
    const contextId = typeof raw.context_id === 'string' ? raw.context_id : undefined;
    try {
      if (raw.cancel !== undefined) {
        const cancel = checkMessage(CartesiaCancel, value);
        // Not answered, as Cartesia does not: a client has already stopped listening to the context.
        this.socket.cancel(cancel.context_id);
        return;
      }
      this.generate(checkMessage(CartesiaGeneration, value));
    } catch (err) {
      this.refuse(err, contextId);
    }
  }

  private refuse(err: unknown, contextId?: string): void {
    this.socket.sendJson(errorMessage(err, contextId, this.log));
  }

  private generate(message: CartesiaGeneration): void {
    let context = this.socket.context(message.context_id);
    if (context?.ending) {
      throw new AppError('validation', `context "${message.context_id}" has had its last input (continue: false); use a new context_id`);
    }
    if (!context) {
      if (!message.voice) throw new AppError('validation', 'voice: a context’s first message names its voice ({"mode": "id", "id": …})');
      if (!message.output_format) throw new AppError('validation', 'output_format: a context’s first message sets its output format');
      context = this.socket.open(
        message.context_id,
        this.settings(message.voice.id, message.output_format, message.generation_config?.speed),
      );
      this.state.set(context, { timestamps: message.add_timestamps === true, flushId: 1, lastAt: performance.now() });
    }
    const opened = context;
    this.socket.push(opened, message.transcript);
    if (message.continue !== true) {
      this.socket.end(opened, () => this.socket.sendJson({ type: 'done', context_id: opened.id, done: true, status_code: 200 }));
    } else if (message.flush === true) {
      this.socket.flush(opened, () => {
        const state = this.state.get(opened);
        if (!state) return;
        this.socket.sendJson({
          type: 'flush_done',
          context_id: opened.id,
          flush_id: state.flushId,
          flush_done: true,
          done: false,
          status_code: 206,
        });
        state.flushId += 1;
      });
    }
  }

  private settings(voiceId: string, output: CartesiaOutputFormat, speed: number | undefined): ContextSettings {
    const { format } = CARTESIA_ENCODINGS[output.encoding as CartesiaEncoding];
    return {
      // OpenAI's names (alloy, nova...) as everywhere else; any other id is ours.
      voice: { voiceId: this.app.services.speech.chooseOpenAiVoice('tts-1', voiceId).voiceId, ...(speed !== undefined ? { speed } : {}) },
      format,
      output: { codec: { sampleRate: output.sample_rate }, headerless: true },
    };
  }

  private sendChunk(context: VendorContext, chunk: SpeechChunk, words: WordTiming[]): void {
    const state = this.state.get(context);
    if (!state) return;
    const now = performance.now();
    if (chunk.bytes.length > 0) {
      this.socket.sendJson({
        type: 'chunk',
        context_id: context.id,
        data: Buffer.from(chunk.bytes.buffer, chunk.bytes.byteOffset, chunk.bytes.byteLength).toString('base64'),
        done: false,
        status_code: 206,
        step_time: Math.round((now - state.lastAt) * 1000) / 1000,
        flush_id: state.flushId,
      });
      state.lastAt = now;
    }
    if (state.timestamps && words.length > 0) {
      this.socket.sendJson({
        type: 'timestamps',
        context_id: context.id,
        done: false,
        status_code: 206,
        flush_id: state.flushId,
        word_timestamps: { words: words.map((w) => w.word), start: words.map((w) => w.start), end: words.map((w) => w.end) },
      });
    }
  }
}
