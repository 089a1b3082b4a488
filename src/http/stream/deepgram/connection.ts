// One Deepgram /v1/speak socket: Speak pieces of one stream of text, Flush / Clear / Close, binary audio frames.
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { AppError, errorReport } from '../../../errors.ts';
import { DEEPGRAM_CONTROL_TYPES, DeepgramSpeak } from '../../../schemas/deepgram.ts';
import type { Principal } from '../../types.ts';
import { checkMessage } from '../vendor-messages.ts';
import { VendorSocket, type ContextSettings, type VendorContext, type VendorSocketLimits } from '../vendor-socket.ts';

/** The one context a Deepgram socket speaks in (their protocol has none): a new one after each Clear. */
const STREAM = 'speak';

/** A UUID-shaped id that stays the same for one voice (Metadata's `model_uuid`). */
function voiceUuid(voiceId: string): string {
  const h = createHash('sha1').update(`voxsmith voice ${voiceId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export interface DeepgramSession {
  /** The model as the client named it (Metadata's `model_name`). */
  model: string;
  settings: ContextSettings;
}

export class DeepgramConnection {
  private readonly socket: VendorSocket;
  /** Numbers Flushed and Cleared answers, in the order they were asked for. */
  private sequence = 0;
  /** Flushes of the current stream not answered yet: answered anyway if the stream fails, so no client waits forever. */
  private pendingFlushes: number[] = [];
  private closing = false;

  constructor(
    app: FastifyInstance,
    ws: WebSocket,
    principal: Principal,
    ip: string,
    private readonly log: FastifyBaseLogger,
    limits: VendorSocketLimits,
    private readonly session: DeepgramSession,
  ) {
    this.socket = new VendorSocket(
      app,
      ws,
      principal,
      ip,
      log,
      'deepgram',
      limits,
      {
        audio: (_context, chunk) => {
          if (chunk.bytes.length > 0) this.socket.sendBinary(chunk.bytes);
        },
        failed: (_contextId, err) => {
          this.warn(err);
          for (const id of this.pendingFlushes.splice(0)) this.socket.sendJson({ type: 'Flushed', sequence_id: id });
        },
      },
      (text) => this.onMessage(text),
    );
    this.socket.sendJson({
      type: 'Metadata',
      request_id: randomUUID(),
      model_name: session.model,
      model_version: session.settings.voice.voiceId ?? 'default',
      model_uuid: voiceUuid(session.settings.voice.voiceId ?? 'default'),
    });
  }

  close(code: number, reason: string): void {
    this.socket.close(code, reason);
  }

  /**
   * Deepgram tells a socket's problems in Warning messages (`description`, `code`; `warn_msg` and `warn_code` too,
   * as LiveKit's plugin reads them); the socket stays open.
   */
  private warn(err: unknown): void {
    const { body, internal } = errorReport(err, 'synthesis failed');
    if (internal) this.log.error({ err }, 'Deepgram socket request failed');
    this.socket.sendJson({ type: 'Warning', description: body.error, code: body.code, warn_msg: body.error, warn_code: body.code });
  }

  private stream(): VendorContext {
    return this.socket.context(STREAM) ?? this.socket.open(STREAM, this.session.settings);
  }

  private onMessage(text: string | null): void {
    if (text === null) return this.warn(new AppError('bad_request', 'send JSON text frames ({"type": "Speak", "text": …}), not binary'));
    if (this.closing) return this.warn(new AppError('bad_request', 'the socket is closing (Close was sent)'));
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return this.warn(new AppError('bad_request', 'message is not valid JSON'));
    }
    const type = typeof value === 'object' && value !== null ? (value as Record<string, unknown>).type : undefined;
    try {
      switch (type) {
        case 'Speak':
          return this.socket.push(this.stream(), checkMessage(DeepgramSpeak, value).text);
        case 'Flush':
          return this.flush();
        case 'Clear':
          return this.clear();
        case 'Close':
          this.closing = true;
          return this.socket.afterQueue(() => this.socket.close(1000, 'closed by the client'));
        default:
          throw new AppError(
            'bad_request',
            `unknown message type ${JSON.stringify(type ?? null)}; expected one of: Speak, ${DEEPGRAM_CONTROL_TYPES.join(', ')}`,
          );
      }
    } catch (err) {
      this.warn(err);
    }
  }

  /** Speaks what the stream holds, then Flushed with this flush's number. */
  private flush(): void {
    const id = this.sequence++;
    const context = this.socket.context(STREAM);
    const answer = (): void => {
      this.pendingFlushes = this.pendingFlushes.filter((p) => p !== id);
      this.socket.sendJson({ type: 'Flushed', sequence_id: id });
    };
    // Before the flush is queued: with nothing ahead of it, it is answered at once.
    this.pendingFlushes.push(id);
    try {
      if (context) this.socket.flush(context, answer);
      else this.socket.afterQueue(answer);
    } catch (err) {
      this.pendingFlushes = this.pendingFlushes.filter((p) => p !== id);
      throw err;
    }
  }

  /** Barge-in: the text held and the audio under way are dropped at once (their flushes with them), then Cleared. */
  private clear(): void {
    this.socket.cancel(STREAM);
    this.pendingFlushes = [];
    this.socket.sendJson({ type: 'Cleared', sequence_id: this.sequence++ });
  }
}
