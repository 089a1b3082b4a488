import assert from 'node:assert/strict';
import WebSocket from 'ws';

export interface StreamMsg {
  type: string;
  audio?: string;
  id?: string;
  context_id?: string;
  error?: string;
  code?: string;
  samples?: number;
  seconds?: number;
  cancelled?: boolean;
  words?: Array<{ word: string; start: number; end: number; offset?: number; length?: number }>;
  marks?: Array<{ name: string; time: number }>;
  position?: number;
  retry_after?: number;
}

export interface OpenOptions {
  /** Options for the `ws` client, e.g. headers with a cookie and an origin. */
  ws?: WebSocket.ClientOptions;
  protocols?: string[];
  /** How long `until` waits when the call names no bound; Infinity waits for the message however long it takes. */
  timeoutMs?: number;
}

/** A /v1/ws/stream client that records every message and lets a test wait for the next one matching a predicate. */
export class StreamClient {
  readonly messages: StreamMsg[] = [];
  private waiters: Array<() => void> = [];
  closed: { code: number; reason: string } | null = null;

  constructor(
    readonly ws: WebSocket,
    private readonly timeoutMs = 60_000,
  ) {
    ws.on('message', (d) => {
      this.messages.push(JSON.parse(d.toString()) as StreamMsg);
      for (const w of this.waiters.splice(0)) w();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      for (const w of this.waiters.splice(0)) w();
    });
  }

  static async open(url: string, options: OpenOptions = {}): Promise<StreamClient> {
    const ws = new WebSocket(url, options.protocols, options.ws);
    const client = new StreamClient(ws, options.timeoutMs);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return client;
  }

  send(m: unknown): void {
    this.ws.send(JSON.stringify(m));
  }

  /** The first message from index `from` on that matches. */
  async until(pred: (m: StreamMsg) => boolean, from = 0, timeoutMs = this.timeoutMs): Promise<StreamMsg> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.slice(from).find(pred);
      if (found) return found;
      if (this.closed) throw new Error(`closed ${this.closed.code} ${this.closed.reason}`);
      if (Date.now() > deadline) throw new Error('timed out waiting for a message');
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 100);
      });
    }
  }

  /** The close code and reason once the server closes, or null if it has not within `ms`. */
  async closedWithin(ms: number): Promise<{ code: number; reason: string } | null> {
    const deadline = Date.now() + ms;
    while (!this.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    return this.closed;
  }

  /** float32 samples of the audio messages matching `which` (by id or context_id). */
  samples(which: (m: StreamMsg) => boolean = () => true): Float32Array {
    const parts = this.messages.filter((m) => m.type === 'audio' && which(m)).map((m) => Buffer.from(m.audio ?? '', 'base64'));
    for (const p of parts) assert.equal(p.length % 4, 0, 'whole float32 samples in every chunk');
    const all = Buffer.concat(parts);
    return new Float32Array(all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength));
  }

  close(): void {
    this.ws.close();
  }
}
