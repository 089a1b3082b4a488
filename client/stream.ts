// The WebSocket stream (/v1/ws/stream): JSON text frames in, base64 float32 PCM chunks out.
import { VoxsmithError } from './errors.ts';
import { STREAM_SAMPLE_RATE } from '../src/schemas/speech.ts';
import type { StreamRequest, StreamResult, WordTiming } from './types.ts';

/** Sample rate of the stream's audio: float32 mono at 24 000 Hz. */
export { STREAM_SAMPLE_RATE };

/**
 * A WebSocket class: the browser's own, or the `ws` package's in Node 20 (which has no global WebSocket).
 * Only the `on*` handlers, `send`, `close` and `readyState` are used, which both provide.
 */
export type WebSocketClass = new (url: string, protocols?: string | string[]) => object;

interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: { message?: unknown }) => void) | null;
}

const OPEN = 1;

interface ServerMessage {
  type?: unknown;
  id?: unknown;
  audio?: unknown;
  words?: unknown;
  samples?: unknown;
  seconds?: unknown;
  cancelled?: unknown;
  error?: unknown;
  code?: unknown;
  retry_after?: unknown;
}

export interface StreamOptions {
  signal?: AbortSignal;
  /** Word timings as they arrive (seconds from the start of this request's audio). */
  onWords?: (words: WordTiming[]) => void;
}

interface Pending {
  chunks: Float32Array[];
  result: StreamResult | null;
  error: Error | null;
  wake: (() => void) | null;
  onWords?: (words: WordTiming[]) => void;
}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** One base64 chunk of little-endian float32 samples, decoded without Node's Buffer (works in browsers). */
export function decodeFloat32(base64: string): Float32Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length - (binary.length % 4));
  for (let i = 0; i < bytes.length; i++) bytes[i] = binary.charCodeAt(i);
  if (littleEndian) return new Float32Array(bytes.buffer);
  const view = new DataView(bytes.buffer);
  const out = new Float32Array(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

/**
 * One open stream connection. Requests sent on it are spoken one after another (the server queues them);
 * each `synthesize` call yields its own chunks. Breaking out of the loop, or aborting, cancels that request.
 */
export class SpeechStream {
  private readonly pending = new Map<string, Pending>();
  private nextId = 1;
  private closedWith: VoxsmithError | null = null;

  private constructor(private readonly socket: SocketLike) {
    socket.onmessage = (event) => this.onMessage(event.data);
    socket.onclose = (event) => this.onClose(event.code, event.reason);
  }

  /** Opens the connection; rejects with a VoxsmithError when the server refuses the upgrade. */
  static open(url: string, WebSocketImpl: WebSocketClass, protocols?: string[]): Promise<SpeechStream> {
    const socket = new WebSocketImpl(url, protocols) as SocketLike;
    return new Promise((resolve, reject) => {
      let failure: VoxsmithError | null = null;
      socket.onopen = () => {
        socket.onerror = null;
        resolve(new SpeechStream(socket));
      };
      socket.onerror = (event) => {
        // Browsers say nothing about why; `ws` names the HTTP status of a refused upgrade.
        const message = typeof event.message === 'string' ? event.message : 'WebSocket connection failed';
        const status = /server response: (\d{3})/.exec(message);
        failure = new VoxsmithError(message, status ? Number(status[1]) : 0, status?.[1] === '401' ? 'unauthorized' : undefined, undefined);
      };
      socket.onclose = (event) => {
        reject(failure ?? new VoxsmithError(`WebSocket closed before it opened (${event.code})`, 0, undefined, undefined));
      };
    });
  }

  get isOpen(): boolean {
    return this.closedWith === null && this.socket.readyState === OPEN;
  }

  /**
   * Speaks `request`, yielding float32 chunks (24 kHz mono) as they arrive; returns the server's totals.
   * Throws a VoxsmithError for an error message about this request or a connection that closes under it.
   */
  async *synthesize(request: StreamRequest, options: StreamOptions = {}): AsyncGenerator<Float32Array, StreamResult> {
    const { signal } = options;
    signal?.throwIfAborted();
    if (this.closedWith) throw this.closedWith;
    const id = `r${this.nextId++}`;
    const entry: Pending = { chunks: [], result: null, error: null, wake: null, onWords: options.onWords };
    this.pending.set(id, entry);
    const poke = () => {
      const wake = entry.wake;
      entry.wake = null;
      wake?.();
    };
    signal?.addEventListener('abort', poke);
    let finished = false;
    try {
      this.socket.send(JSON.stringify({ type: 'synthesize', id, ...request }));
      for (;;) {
        if (signal?.aborted) throw abortReason(signal);
        const chunk = entry.chunks.shift();
        if (chunk) {
          yield chunk;
          continue;
        }
        if (entry.error) {
          finished = true;
          throw entry.error;
        }
        if (entry.result) {
          finished = true;
          return entry.result;
        }
        await new Promise<void>((resolve) => (entry.wake = resolve));
      }
    } finally {
      signal?.removeEventListener('abort', poke);
      this.pending.delete(id);
      if (!finished && this.isOpen) this.socket.send(JSON.stringify({ type: 'cancel', id }));
    }
  }

  close(): void {
    if (this.socket.readyState <= OPEN) this.socket.close(1000, 'done');
  }

  private onMessage(data: unknown): void {
    if (typeof data !== 'string') return;
    let message: ServerMessage;
    try {
      message = JSON.parse(data) as ServerMessage;
    } catch {
      return;
    }
    const entry = typeof message.id === 'string' ? this.pending.get(message.id) : undefined;
    if (!entry) return;
    if (message.type === 'audio' && typeof message.audio === 'string') {
      entry.chunks.push(decodeFloat32(message.audio));
      if (Array.isArray(message.words) && message.words.length > 0) entry.onWords?.(message.words as WordTiming[]);
    } else if (message.type === 'done') {
      entry.result = {
        samples: typeof message.samples === 'number' ? message.samples : 0,
        seconds: typeof message.seconds === 'number' ? message.seconds : 0,
        cancelled: message.cancelled === true,
      };
    } else if (message.type === 'error') {
      entry.error = new VoxsmithError(
        typeof message.error === 'string' ? message.error : 'stream error',
        0,
        typeof message.code === 'string' ? message.code : undefined,
        undefined,
        typeof message.retry_after === 'number' ? message.retry_after : undefined,
      );
    }
    const wake = entry.wake;
    entry.wake = null;
    wake?.();
  }

  private onClose(code: number, reason: string): void {
    this.closedWith = new VoxsmithError(
      `stream closed (${code}${reason ? `: ${reason}` : ''})`,
      0,
      code === 1008 ? 'unauthorized' : 'stream_closed',
      undefined,
    );
    for (const entry of this.pending.values()) {
      if (!entry.result) entry.error ??= this.closedWith;
      const wake = entry.wake;
      entry.wake = null;
      wake?.();
    }
  }
}
