// Wyoming's framing (rhasspy/wyoming, event.py): one JSON header line per event, `{"type", "data"?,
// "data_length"?, "payload_length"?, "version"?}`, then `data_length` bytes of JSON merged into data, then
// `payload_length` bytes of binary payload. Everything a client sends is bounded here.

export interface WyomingEvent {
  type: string;
  data: Record<string, unknown>;
  payload?: Uint8Array;
}

/** The protocol version we speak (the reference library's, which HA's client also sends). */
export const WYOMING_VERSION = '1.7.2';

/** Bounds on what a client may send: TTS needs text only, so payloads stay small. */
export const FRAME_LIMITS = { headerBytes: 64 * 1024, dataBytes: 256 * 1024, payloadBytes: 64 * 1024 } as const;

export class FrameError extends Error {}

/** Writes one event as bytes. */
export function encodeEvent(type: string, data?: Record<string, unknown>, payload?: Uint8Array): Buffer {
  const header: Record<string, unknown> = { type, version: WYOMING_VERSION };
  const parts: Buffer[] = [];
  const body = data === undefined ? undefined : Buffer.from(JSON.stringify(data), 'utf8');
  if (body) header.data_length = body.length;
  if (payload && payload.length > 0) header.payload_length = payload.length;
  parts.push(Buffer.from(`${JSON.stringify(header)}\n`, 'utf8'));
  if (body) parts.push(body);
  if (payload && payload.length > 0) parts.push(Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength));
  return Buffer.concat(parts);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function length(header: Record<string, unknown>, name: string, max: number): number {
  const v = header[name];
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new FrameError(`${name} must be a whole number`);
  if (v > max) throw new FrameError(`${name} ${v} is over the limit of ${max} bytes`);
  return v;
}

/**
 * Reassembles events from the bytes of one connection, one event at a time: `append` takes what arrived and
 * `next` hands out the next complete event, so a connection handles events as fast as it can answer them and
 * leaves the rest as bytes (which the server bounds by pausing the socket). FrameError marks a frame that breaks
 * the protocol or a limit; the connection is then closed.
 */
export class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);
  private pending: { type: string; data: Record<string, unknown>; dataLength: number; payloadLength: number } | undefined;

  /** Bytes received and not yet handed out as events. */
  get bufferedBytes(): number {
    return this.buffered.length;
  }

  append(bytes: Buffer): void {
    this.buffered = this.buffered.length === 0 ? bytes : Buffer.concat([this.buffered, bytes]);
  }

  /** Every event complete so far (a client reading the server's answers, which it trusts to be small enough). */
  push(bytes: Buffer): WyomingEvent[] {
    this.append(bytes);
    const events: WyomingEvent[] = [];
    for (let event = this.next(); event; event = this.next()) events.push(event);
    return events;
  }

  /** The next complete event, or undefined until more bytes come. */
  next(): WyomingEvent | undefined {
    for (;;) {
      if (!this.pending) {
        const newline = this.buffered.indexOf(0x0a);
        if (newline < 0) {
          if (this.buffered.length > FRAME_LIMITS.headerBytes)
            throw new FrameError(`event header longer than ${FRAME_LIMITS.headerBytes} bytes`);
          return undefined;
        }
        if (newline > FRAME_LIMITS.headerBytes) throw new FrameError(`event header longer than ${FRAME_LIMITS.headerBytes} bytes`);
        const line = this.buffered.subarray(0, newline).toString('utf8');
        this.buffered = this.buffered.subarray(newline + 1);
        if (line.trim() === '') continue;
        let header: unknown;
        try {
          header = JSON.parse(line);
        } catch {
          throw new FrameError('event header is not JSON');
        }
        if (!isRecord(header) || typeof header.type !== 'string' || header.type.length === 0 || header.type.length > 100) {
          throw new FrameError('event header needs a "type" string');
        }
        if (header.data !== undefined && !isRecord(header.data)) throw new FrameError('"data" must be an object');
        this.pending = {
          type: header.type,
          data: isRecord(header.data) ? { ...header.data } : {},
          dataLength: length(header, 'data_length', FRAME_LIMITS.dataBytes),
          payloadLength: length(header, 'payload_length', FRAME_LIMITS.payloadBytes),
        };
      }
      const { dataLength, payloadLength } = this.pending;
      if (this.buffered.length < dataLength + payloadLength) return undefined;
      const event: WyomingEvent = { type: this.pending.type, data: this.pending.data };
      if (dataLength > 0) {
        let extra: unknown;
        try {
          extra = JSON.parse(this.buffered.subarray(0, dataLength).toString('utf8'));
        } catch {
          throw new FrameError('event data is not JSON');
        }
        if (!isRecord(extra)) throw new FrameError('event data must be a JSON object');
        // Defined, not assigned: a "__proto__" key must stay a plain field.
        for (const [k, v] of Object.entries(extra))
          Object.defineProperty(event.data, k, { value: v, enumerable: true, writable: true, configurable: true });
      }
      if (payloadLength > 0) event.payload = Uint8Array.prototype.slice.call(this.buffered, dataLength, dataLength + payloadLength);
      // A view: the received buffer it shares stays bounded by what the server lets a connection buffer.
      this.buffered = this.buffered.subarray(dataLength + payloadLength);
      this.pending = undefined;
      return event;
    }
  }
}
