// A WebSocket stream client that times each request: first audio chunk, done, audio seconds received.
import WebSocket from 'ws';

const RATE = 24_000;
const BYTES_PER_SAMPLE = 4;
// The server writes `{"type":"audio","audio":"<base64>"...}`: reading the length of the base64 from the
// frame avoids parsing megabytes of JSON in a client that shares the cores with the server.
const AUDIO_PREFIX = '{"type":"audio","audio":"';

export interface StreamResult {
  /** From sending `synthesize` to the first audio message. */
  firstChunkMs: number;
  /** From sending `synthesize` to `done` (or to the error). */
  totalMs: number;
  audioSeconds: number;
  chunks: number;
  /** Each audio message as it came: ms after sending `synthesize`, and the seconds of audio it carried. */
  arrivals: { ms: number; seconds: number }[];
  error?: string;
}

interface Pending {
  id: string;
  sent: number;
  first: number;
  bytes: number;
  chunks: number;
  arrivals: { ms: number; seconds: number }[];
  cancelAfterFirst: boolean;
  resolve: (r: StreamResult) => void;
}

function base64Bytes(length: number, tail: string): number {
  return (length / 4) * 3 - (tail.endsWith('==') ? 2 : tail.endsWith('=') ? 1 : 0);
}

export class StreamClient {
  private readonly pending = new Map<string, Pending>();
  private nextId = 1;
  closedWith: string | null = null;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => this.onMessage(data.toString()));
    ws.on('close', (code, reason) => {
      this.closedWith = `closed ${code} ${reason.toString()}`;
      for (const p of this.pending.values()) this.finish(p, this.closedWith);
    });
    // An error is followed by 'close', which settles whatever is pending.
    ws.on('error', () => undefined);
  }

  static open(base: string, key: string): Promise<StreamClient> {
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/v1/ws/stream?token=${encodeURIComponent(key)}`, { perMessageDeflate: false });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new StreamClient(ws)));
      ws.once('error', reject);
    });
  }

  /** Streams `text`; with cancelAfterFirst, cancels once the first chunk is in and resolves at `done`. */
  synthesize(text: string, voiceId: string, cancelAfterFirst = false): Promise<StreamResult> {
    const id = String(this.nextId++);
    return new Promise((resolve) => {
      if (this.closedWith)
        return resolve({ firstChunkMs: Number.NaN, totalMs: Number.NaN, audioSeconds: 0, chunks: 0, arrivals: [], error: this.closedWith });
      this.pending.set(id, { id, sent: performance.now(), first: 0, bytes: 0, chunks: 0, arrivals: [], cancelAfterFirst, resolve });
      this.ws.send(JSON.stringify({ type: 'synthesize', id, text, voice_id: voiceId }));
    });
  }

  close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.ws.once('close', () => resolve());
      this.ws.close(1000);
    });
  }

  private onMessage(text: string): void {
    if (text.startsWith(AUDIO_PREFIX)) {
      const end = text.indexOf('"', AUDIO_PREFIX.length);
      const idMatch = /"id":"([^"]*)"/.exec(text.slice(end, end + 200));
      const p = idMatch ? this.pending.get(idMatch[1]) : undefined;
      if (!p) return;
      const now = performance.now();
      p.first ||= now;
      p.chunks += 1;
      const bytes = base64Bytes(end - AUDIO_PREFIX.length, text.slice(Math.max(AUDIO_PREFIX.length, end - 2), end));
      p.bytes += bytes;
      p.arrivals.push({ ms: now - p.sent, seconds: bytes / BYTES_PER_SAMPLE / RATE });
      if (p.cancelAfterFirst && p.chunks === 1) this.ws.send(JSON.stringify({ type: 'cancel', id: p.id }));
      return;
    }
    const m = JSON.parse(text) as { type: string; id?: string; error?: string };
    const p = m.id === undefined ? undefined : this.pending.get(m.id);
    if (!p) return;
    if (m.type === 'done') this.finish(p);
    else if (m.type === 'error') this.finish(p, m.error ?? 'error');
  }

  private finish(p: Pending, error?: string): void {
    this.pending.delete(p.id);
    const now = performance.now();
    p.resolve({
      firstChunkMs: p.first ? p.first - p.sent : Number.NaN,
      totalMs: now - p.sent,
      audioSeconds: p.bytes / BYTES_PER_SAMPLE / RATE,
      chunks: p.chunks,
      arrivals: p.arrivals,
      ...(error ? { error } : {}),
    });
  }
}

/** `count` connections opened at once; null where one failed to open. */
export function openStreams(base: string, key: string, count: number): Promise<(StreamClient | null)[]> {
  return Promise.all(Array.from({ length: count }, () => StreamClient.open(base, key).catch(() => null)));
}

/**
 * Every client speaks its text (`text(i)`) at the same time; a connection that failed to open counts as a
 * failed stream. The clients are closed afterwards.
 */
export async function speakOnAll(
  clients: readonly (StreamClient | null)[],
  text: (i: number) => string,
  voice: string,
): Promise<StreamResult[]> {
  try {
    return await Promise.all(
      clients.map((c, i) =>
        c
          ? c.synthesize(text(i), voice)
          : { firstChunkMs: Number.NaN, totalMs: Number.NaN, audioSeconds: 0, chunks: 0, arrivals: [], error: 'connection failed' },
      ),
    );
  } finally {
    await Promise.all(clients.map((c) => c?.close()));
  }
}
