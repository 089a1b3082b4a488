// A raw Wyoming client over node:net, written from the protocol as Home Assistant's is: events in order, as
// they arrive.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { encodeEvent, FrameReader, type WyomingEvent } from '../../src/wyoming/frames.ts';

export class WyomingClient {
  readonly socket: Socket;
  private readonly reader = new FrameReader();
  private readonly events: WyomingEvent[] = [];
  private wake: (() => void) | undefined;
  closed = false;

  /** `localAddress`: another loopback address (127.0.0.2) is another client address to the server. */
  constructor(port: number, options: { host?: string; localAddress?: string } = {}) {
    this.socket = connect({
      port,
      host: options.host ?? '127.0.0.1',
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    });
    this.socket.on('data', (b: Buffer) => {
      this.events.push(...this.reader.push(b));
      this.wake?.();
    });
    this.socket.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
    this.socket.on('error', () => undefined);
  }

  /** Resolves once connected (rejects if the connection fails). */
  async connected(): Promise<void> {
    if (!this.socket.connecting) return;
    await new Promise<void>((resolve, reject) => {
      this.socket.once('connect', resolve);
      this.socket.once('close', () => reject(new Error('connection closed before it opened')));
    });
  }

  send(type: string, data?: Record<string, unknown>): void {
    this.socket.write(encodeEvent(type, data));
  }

  /** The next event (fails if the connection closes first, or after `timeoutMs`). */
  async next(timeoutMs = 60_000): Promise<WyomingEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const e = this.events.shift();
      if (e) return e;
      if (this.closed) throw new Error('connection closed');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no event in time');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Resolves when the server closes the connection. */
  async whenClosed(): Promise<void> {
    while (!this.closed) await new Promise<void>((resolve) => (this.wake = resolve));
  }

  /** Reads audio events until audio-stop: the PCM and its declared format. */
  async audio(): Promise<{ rate: number; width: number; channels: number; samples: number; bytes: Buffer }> {
    const start = await this.next();
    assert.equal(start.type, 'audio-start', JSON.stringify(start.data));
    const parts: Buffer[] = [];
    for (;;) {
      const e = await this.next();
      if (e.type === 'audio-stop') break;
      assert.equal(e.type, 'audio-chunk', JSON.stringify(e.data));
      assert.deepEqual(
        { rate: e.data.rate, width: e.data.width, channels: e.data.channels },
        { rate: start.data.rate, width: 2, channels: 1 },
      );
      parts.push(Buffer.from(e.payload ?? new Uint8Array()));
    }
    const bytes = Buffer.concat(parts);
    return {
      rate: start.data.rate as number,
      width: start.data.width as number,
      channels: start.data.channels as number,
      samples: bytes.length / 2,
      bytes,
    };
  }

  close(): void {
    this.socket.destroy();
  }
}
