// A Wyoming TTS server (the protocol Home Assistant speaks to voice services) on its own TCP port. Every
// synthesis goes through SpeechService, billed to the key connected on the dashboard or set in WYOMING_API_KEY
// (wyoming/link.ts). The protocol has no authentication, so the port binds to loopback unless WYOMING_HOST says
// otherwise, and every connection is bounded: what it may buffer, how long it may idle or leave answers unread,
// how many one address may hold, and how much audio it may be sent. Only events the server answers count as
// activity, and an address at its limit makes room by closing its quietest connection that is not being answered:
// connections sending junk or pings cannot lock out a real client of the same address (Home Assistant on loopback).
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { AppError, errorBody, errorReport, type ErrorBody, type ErrorCode } from '../errors.ts';
import { InputStream, type SentenceWork } from '../speech/input-stream.ts';
import { MARKUP_FACTOR, type TextType } from '../speech/markup.ts';
import type { Speech, SpeechService } from '../speech/speech-service.ts';
import type { SpeechChunk } from '../synth/synthesizer.ts';
import type { VoiceLibrary } from '../voices/library.ts';
import { encodeEvent, FRAME_LIMITS, FrameError, FrameReader, type WyomingEvent } from './frames.ts';
import { ttsInfo } from './info.ts';
import type { WyomingLink, WyomingPayer } from './link.ts';

export interface WyomingLimits {
  /**
   * Connections one client address may hold at once. The next from that address closes the address's quietest
   * connection that is not being answered (and is past its first second); when every one is working, it is refused.
   * Other addresses are not affected.
   */
  connectionsPerAddress: number;
  /** Connections in all: a ceiling on file descriptors, far above what one address may hold. */
  maxConnections: number;
  /** A connection that neither sends an event the server answers nor is being answered for this long is closed. */
  idleMs: number;
  /** A client that reads none of its answers for this long is cut (its synthesis stops). */
  writeStallMs: number;
  /**
   * Bytes received but not yet handled; past this the socket is paused, and TCP's flow control holds the client.
   * Above the largest legal frame, so a frame always completes.
   */
  maxBufferedBytes: number;
  /** Audio seconds one connection may be sent in all; then it gets an `audio_too_long` error and is closed. */
  maxAudioSeconds: number;
}

/** Home Assistant opens a connection per request (describe, synthesize) and closes it: these leave it room. */
export const DEFAULT_WYOMING_LIMITS: Readonly<Omit<WyomingLimits, 'maxAudioSeconds'>> = Object.freeze({
  connectionsPerAddress: 8,
  maxConnections: 1024,
  idleMs: 30_000,
  writeStallMs: 10_000,
  maxBufferedBytes: FRAME_LIMITS.headerBytes + FRAME_LIMITS.dataBytes + FRAME_LIMITS.payloadBytes + 64 * 1024,
});

export interface WyomingDeps {
  speech: SpeechService;
  voices: VoiceLibrary;
  link: WyomingLink;
  log: FastifyBaseLogger;
  maxTextChars: number;
  version: string;
  /** The dashboard page that connects Wyoming to a key, named in the error a synthesis gets until then. */
  connectUrl: string;
  limits: WyomingLimits;
}

/** Where this node's Wyoming server is: listening, or not (the port was taken, by a second node on one host say). */
export type WyomingState =
  | { status: 'listening'; host: string; port: number }
  | { status: 'unavailable'; host: string; port: number; reason: string }
  | { status: 'stopped' };

/** The events this server answers: only these count as activity (others are read and ignored). */
const ANSWERED_EVENTS: ReadonlySet<string> = new Set([
  'describe',
  'ping',
  'synthesize',
  'synthesize-start',
  'synthesize-chunk',
  'synthesize-stop',
]);

/** A new connection is never closed to make room before this: it has a moment to send its first event. */
const EVICTION_GRACE_MS = 1000;

/**
 * The protocol's `text_format` (wyoming 1.10), as `text_type` on every other door: "ssml" is SSML (the subset
 * every door takes), "text" is plain text, none reads an SSML document (`<speak>…`) as SSML; anything else is refused.
 */
function textFormat(data: Record<string, unknown>): TextType | undefined {
  const format = data.text_format;
  if (format === undefined || format === null) return undefined;
  if (format === 'ssml' || format === 'text') return format;
  throw new AppError('validation', `text_format must be "text" or "ssml", not ${JSON.stringify(format).slice(0, 40)}`);
}

function voiceName(data: Record<string, unknown>): string | undefined {
  const voice = data.voice;
  if (typeof voice !== 'object' || voice === null) return undefined;
  const name = (voice as Record<string, unknown>).name;
  return typeof name === 'string' && name.length > 0 ? name : undefined;
}

/** One spelling per client address (IPv4-mapped IPv6 as IPv4), for the per-address count. */
function clientAddress(socket: Socket): string {
  const address = socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

export class WyomingServer {
  private server: Server | undefined;
  private state: WyomingState = { status: 'stopped' };
  private readonly sockets = new Set<Socket>();
  private readonly perAddress = new Map<string, Set<Connection>>();
  private readonly info: InfoCache;

  constructor(private readonly deps: WyomingDeps) {
    this.info = new InfoCache(deps);
  }

  /**
   * Starts listening. A port that cannot be had (in use, by a second node on the same host say) is one log
   * line and no Wyoming on this node, never a failed start: the HTTP service does not depend on it.
   */
  async start(options: { host: string; port: number }): Promise<WyomingState> {
    const server = createServer((socket) => this.serve(socket));
    server.maxConnections = this.deps.limits.maxConnections;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port, options.host, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? String(err);
      const reason = code === 'EADDRINUSE' ? 'in use by another process' : code === 'EACCES' ? 'not permitted' : code;
      this.state = { status: 'unavailable', host: options.host, port: options.port, reason };
      this.deps.log.warn(
        { host: options.host, port: options.port, code },
        `Wyoming: ${options.host}:${options.port} ${reason}; this node serves no Wyoming (WYOMING_PORT sets another port, off turns it off)`,
      );
      return this.state;
    }
    this.server = server;
    const address = server.address() as AddressInfo;
    this.state = { status: 'listening', host: address.address, port: address.port };
    this.deps.log.info({ host: address.address, port: address.port }, 'Wyoming TTS server listening');
    return this.state;
  }

  status(): WyomingState {
    return this.state;
  }

  address(): AddressInfo | undefined {
    return (this.server?.address() as AddressInfo | null) ?? undefined;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.state = { status: 'stopped' };
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private serve(socket: Socket): void {
    socket.on('error', () => undefined);
    const address = clientAddress(socket);
    const held = this.perAddress.get(address) ?? new Set<Connection>();
    const { limits } = this.deps;
    if (held.size >= limits.connectionsPerAddress) {
      const quietest = quietestIdle(held);
      if (quietest) {
        // Idle or junk connections give way to a new client of their address: they cannot hold it locked.
        held.delete(quietest);
        quietest.dismiss(`closed to make room for a new connection from ${address} (at most ${limits.connectionsPerAddress} at once)`);
      } else {
        // Every connection of this address is being answered: only this address is refused, others are not.
        closeWith(socket, `Too many connections from ${address} (at most ${limits.connectionsPerAddress} at once)`);
        return;
      }
    }
    this.perAddress.set(address, held);
    this.sockets.add(socket);
    const connection = new Connection(this.deps, socket, address, this.info);
    held.add(connection);
    socket.on('close', () => {
      connection.closed();
      this.sockets.delete(socket);
      held.delete(connection);
      if (held.size === 0 && this.perAddress.get(address) === held) this.perAddress.delete(address);
    });
  }
}

/** Tells a client why it is closed (a `rate_limited` error), then closes it; one that does not read is cut a second later. */
function closeWith(socket: Socket, message: string): void {
  socket.end(encodeEvent('error', wyomingError(errorBody('rate_limited', message))));
  setTimeout(() => socket.destroy(), 1000).unref();
}

/**
 * The connection to close for a newcomer: not being answered, past its grace, without an open text stream before
 * one with, then the longest without activity. None when all are working (or new).
 */
function quietestIdle(held: Iterable<Connection>): Connection | undefined {
  const now = Date.now();
  let best: Connection | undefined;
  for (const c of held) {
    if (!c.dismissible(now)) continue;
    if (!best || c.streaming < best.streaming || (c.streaming === best.streaming && c.lastActive < best.lastActive)) best = c;
  }
  return best;
}

/**
 * The encoded `info` answer (the payer's own voices are in it), kept a few seconds: Home Assistant asks on every
 * connection, and a client asking in a loop then costs a write, not a database read and a rendering of every voice.
 */
class InfoCache {
  private static readonly TTL_MS = 5000;
  private current: { at: number; bytes: Promise<Buffer> } | undefined;

  constructor(private readonly deps: Pick<WyomingDeps, 'voices' | 'version' | 'link'>) {}

  /** The payer's voice list (a key connected or changed shows within TTL_MS); synthesis always asks afresh. */
  get(): Promise<Buffer> {
    const now = Date.now();
    if (this.current && now - this.current.at < InfoCache.TTL_MS) return this.current.bytes;
    const bytes = (async () => {
      const payer = await this.deps.link.payer();
      return encodeEvent('info', ttsInfo(await this.deps.voices.list({}, payer?.userId ?? null), this.deps.version));
    })();
    const entry = { at: now, bytes };
    this.current = entry;
    bytes.catch(() => {
      if (this.current === entry) this.current = undefined;
    });
    return bytes;
  }
}

/** A synthesize-start … synthesize-stop stream: its sentences are cut and spoken as the WebSocket's contexts are. */
interface TextStream {
  voice: string | undefined;
  input: InputStream;
  audioStarted: boolean;
  /**
   * An SSML stream's chunks, kept whole until synthesize-stop: markup cannot be cut into sentences before the
   * document is complete. Absent for text.
   */
  ssml?: { pieces: string[]; chars: number };
  /** For the request log: what the stream has spoken so far. */
  characters: number;
  audioSeconds: number;
  outcome: string;
}

/** What one speak() call did, for the request log. */
interface Spoken {
  ok: boolean;
  audioSeconds: number;
  payer: WyomingPayer | null;
  outcome: string;
}

/** The connection's audio budget ran out: the client is told, then the connection ends. */
class AudioBudgetSpent extends AppError {}

/** Wyoming names the envelope's message `text`. */
const wyomingError = (body: ErrorBody): { text: string; code: ErrorCode } => ({ text: body.error, code: body.code });

/** One client: its events in order, one at a time; its streaming state; the events it is sent. */
class Connection {
  private readonly reader = new FrameReader();
  private readonly abort = new AbortController();
  private readonly idle: NodeJS.Timeout;
  private readonly openedAt = Date.now();
  /** When an answered event last arrived or an answer last went out (Date.now()). */
  lastActive = this.openedAt;
  private handling = false;
  private stream: TextStream | undefined;
  /** Audio sent on this connection so far (all its requests). */
  private audioSeconds = 0;
  /** Who paid for the synthesis in progress, for its log line. */
  private lastPayer: WyomingPayer | null = null;

  constructor(
    private readonly deps: WyomingDeps,
    private readonly socket: Socket,
    private readonly client: string,
    private readonly info: InfoCache,
  ) {
    this.idle = setTimeout(() => this.idled(), deps.limits.idleMs);
    this.idle.unref();
    socket.on('data', (bytes: Buffer) => this.received(bytes));
  }

  closed(): void {
    clearTimeout(this.idle);
    this.abort.abort();
  }

  /** Whether a newcomer of this address may take this connection's place: not being answered, past its grace. */
  dismissible(now: number): boolean {
    return !this.handling && !this.socket.writableEnded && now - this.openedAt >= EVICTION_GRACE_MS;
  }

  /** 1 while a synthesize-start stream is open (kept before connections without one), else 0. */
  get streaming(): number {
    return this.stream ? 1 : 0;
  }

  /** Closed to make room for another connection of its address: told why first. */
  dismiss(message: string): void {
    this.abort.abort();
    closeWith(this.socket, message);
  }

  /** Something the server answers happened: the idle timer starts again. Junk (unknown events, bytes) never does this. */
  private active(): void {
    this.lastActive = Date.now();
    this.idle.refresh();
  }

  private idled(): void {
    // An answer in progress (a long synthesis, a wait for a slot) is not idleness.
    if (this.handling) this.idle.refresh();
    else this.socket.destroy();
  }

  private received(bytes: Buffer): void {
    this.reader.append(bytes);
    // Events are parsed only as they are handled: the rest waits as bytes, and past the bound the socket stops
    // reading, so a client that sends faster than it is answered fills its own TCP window, not our memory.
    if (this.reader.bufferedBytes > this.deps.limits.maxBufferedBytes) this.socket.pause();
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.handling) return;
    this.handling = true;
    try {
      for (;;) {
        if (this.socket.destroyed) return;
        const event = this.reader.next();
        if (!event) break;
        const answered = ANSWERED_EVENTS.has(event.type);
        if (answered) this.active();
        await this.handle(event);
        if (answered) this.active();
      }
    } catch (err) {
      // A broken frame cannot be skipped (its lengths are not to be trusted): this connection ends, others go on.
      if (err instanceof FrameError)
        this.deps.log.info({ reason: err.message, client: this.client }, 'Wyoming: bad frame, connection closed');
      else this.deps.log.error({ err }, 'Wyoming: connection failed');
      this.socket.destroy();
      return;
    } finally {
      this.handling = false;
    }
    // Only a partial frame is left, smaller than the bound: read on.
    if (this.socket.isPaused()) this.socket.resume();
  }

  private async handle(event: WyomingEvent): Promise<void> {
    if (this.abort.signal.aborted || this.socket.writableEnded) return;
    const { data } = event;
    switch (event.type) {
      case 'describe':
        // Before any key is connected too: Home Assistant lists the voices when the integration is added.
        await this.write(await this.info.get());
        return;
      case 'ping':
        await this.send('pong', {});
        return;
      case 'synthesize': {
        // Sent beside the streaming events for servers that do not stream; the stream already carries the text.
        if (this.stream) return;
        const text = typeof data.text === 'string' ? data.text : '';
        const voice = voiceName(data);
        let format: TextType | undefined;
        try {
          format = textFormat(data);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          return this.error(err);
        }
        const spoken = await this.speak(text, voice, format);
        if (spoken.ok) await this.send('audio-stop', {});
        await this.log({ voice, characters: text.length, ...spoken });
        return this.endIfSpent();
      }
      case 'synthesize-start': {
        const voice = voiceName(data);
        let format: TextType | undefined;
        try {
          format = textFormat(data);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          return this.error(err);
        }
        const input = new InputStream({
          speech: this.deps.speech,
          door: 'wyoming',
          format: 'pcm',
          voice: { voiceId: voice },
          maxChars: this.deps.maxTextChars,
          tooLong: (_wouldHold, limit) => `streamed text has no sentence end within ${limit} characters`,
          // Only synthesize-stop flushes: a stream past the budget would refuse every later chunk.
          dropOnOverflow: true,
          payer: () => this.payer(),
        });
        this.stream = {
          voice,
          input,
          audioStarted: false,
          ...(format === 'ssml' ? { ssml: { pieces: [], chars: 0 } } : {}),
          characters: 0,
          audioSeconds: 0,
          outcome: 'spoken',
        };
        return;
      }
      case 'synthesize-chunk': {
        const stream = this.stream;
        if (!stream) return this.error(new AppError('validation', 'synthesize-chunk without synthesize-start'));
        const piece = typeof data.text === 'string' ? data.text : '';
        if (stream.ssml) return this.addMarkup(stream.ssml, piece);
        let ready: SentenceWork[];
        try {
          ready = stream.input.push(piece);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          return this.error(err);
        }
        // A sentence is spoken as soon as it is complete.
        await this.speakSentences(stream, ready);
        return this.endIfSpent();
      }
      case 'synthesize-stop': {
        const stream = this.stream;
        if (!stream) return this.error(new AppError('validation', 'synthesize-stop without synthesize-start'));
        if (stream.ssml) await this.speakMarkup(stream, stream.ssml.pieces.join(''));
        else await this.speakSentences(stream, stream.input.flush());
        this.stream = undefined;
        if (stream.audioStarted) await this.send('audio-stop', {});
        await this.send('synthesize-stopped', {});
        await this.log({
          voice: stream.voice,
          characters: stream.characters,
          audioSeconds: stream.audioSeconds,
          outcome: stream.outcome,
          payer: null,
        });
        return this.endIfSpent();
      }
      default:
        // Events for other services (or newer ones) are not ours to answer.
        return;
    }
  }

  /**
   * Speaks a stream's newly complete sentences in order, one request each (InputStream.speak). A failure (one
   * `error` event) drops the rest of them: they would fail alike.
   */
  private async speakSentences(stream: TextStream, sentences: SentenceWork[]): Promise<void> {
    for (const [i, sentence] of sentences.entries()) {
      const spoken = await this.attempt(async (audio) => {
        const signal = this.abort.signal;
        await stream.input.speak(sentence, signal, {
          onStart: (speech) => audio.start(speech, stream.audioStarted),
          onChunk: (chunk) => audio.chunk(chunk),
        });
        if (signal.aborted) throw new Error('connection closed');
      });
      stream.audioSeconds += spoken.audioSeconds;
      if (!spoken.ok) {
        stream.outcome = spoken.outcome;
        stream.input.abandon(sentences.slice(i + 1));
        return;
      }
      stream.characters += sentence.text.length;
      stream.audioStarted = true;
    }
  }

  /** Adds a chunk of an SSML stream, within the markup bound a whole SSML text has (MARKUP_FACTOR x MAX_TEXT_CHARS). */
  private async addMarkup(ssml: { pieces: string[]; chars: number }, piece: string): Promise<void> {
    const limit = this.deps.maxTextChars * MARKUP_FACTOR;
    if (ssml.chars + piece.length > limit) {
      return this.error(
        new AppError('text_too_long', `the streamed SSML would be ${ssml.chars + piece.length} characters; the limit is ${limit}`),
      );
    }
    ssml.pieces.push(piece);
    ssml.chars += piece.length;
  }

  /** An SSML stream's document, spoken whole at its synthesize-stop. */
  private async speakMarkup(stream: TextStream, document: string): Promise<void> {
    if (document.trim() === '') return;
    const spoken = await this.speak(document, stream.voice, 'ssml');
    stream.audioSeconds += spoken.audioSeconds;
    if (!spoken.ok) {
      stream.outcome = spoken.outcome;
      return;
    }
    stream.characters += document.length;
    stream.audioStarted = true;
  }

  /** Speaks `text` whole as audio-chunks, after an audio-start. */
  private speak(text: string, voiceId: string | undefined, textType?: TextType): Promise<Spoken> {
    return this.attempt(async (audio) => {
      const payer = await this.payer();
      const speech = await this.deps.speech.speak(
        payer,
        { text, voiceId, format: 'pcm', door: 'wyoming', ...(textType ? { textType } : {}) },
        this.abort.signal,
      );
      await audio.start(speech, false);
      for await (const chunk of speech.chunks) await audio.chunk(chunk);
    });
  }

  /**
   * Who pays for a synthesis, asked afresh before each (a key revoked or disconnected meanwhile pays for no more);
   * refused once the connection's audio budget is spent. Until a key is connected, the error says how to connect one.
   */
  private async payer(): Promise<WyomingPayer> {
    const payer = await this.deps.link.payer();
    this.lastPayer = payer;
    if (!payer) {
      throw new AppError(
        'wyoming_not_connected',
        `Voxsmith's Wyoming server is not connected to an account yet: sign in at ${this.deps.connectUrl} and choose the API key ` +
          'it bills on the Home Assistant page (or start Voxsmith with WYOMING_API_KEY set).',
      );
    }
    if (this.audioSeconds >= this.deps.limits.maxAudioSeconds) throw this.budgetSpent();
    return payer;
  }

  /**
   * Runs a synthesis whose audio goes out as audio-start (unless one was already sent) and audio-chunks, within
   * the connection's audio budget. Failures become an `error` event.
   */
  private async attempt(
    run: (audio: { start(speech: Speech, started: boolean): Promise<void>; chunk(chunk: SpeechChunk): Promise<void> }) => Promise<void>,
  ): Promise<Spoken> {
    const { limits } = this.deps;
    this.lastPayer = null;
    let audioSeconds = 0;
    let format = { rate: 0, width: 2, channels: 1 };
    const audio = {
      start: async (speech: Speech, started: boolean): Promise<void> => {
        format = { rate: speech.info.sampleRate, width: 2, channels: 1 };
        if (!started) await this.send('audio-start', { ...format, timestamp: 0 });
      },
      chunk: async (chunk: SpeechChunk): Promise<void> => {
        // Checked before the chunk goes out, as the per-request cap is: the client never gets more than the budget.
        if (this.audioSeconds + chunk.seconds > limits.maxAudioSeconds) throw this.budgetSpent();
        this.audioSeconds += chunk.seconds;
        audioSeconds += chunk.seconds;
        if (chunk.bytes.length > 0) await this.send('audio-chunk', format, chunk.bytes);
      },
    };
    try {
      await run(audio);
      return { ok: true, audioSeconds, payer: this.lastPayer, outcome: 'spoken' };
    } catch (err) {
      const payer = this.lastPayer;
      if (this.abort.signal.aborted) return { ok: false, audioSeconds, payer, outcome: 'cancelled' };
      const report = errorReport(err, 'synthesis failed');
      if (report.internal) this.deps.log.error({ err }, 'Wyoming synthesis failed');
      await this.send('error', wyomingError(report.body));
      return { ok: false, audioSeconds, payer, outcome: report.body.code };
    }
  }

  private budgetSpent(): AudioBudgetSpent {
    return new AudioBudgetSpent(
      'audio_too_long',
      `this connection has been sent ${this.deps.limits.maxAudioSeconds} s of audio, the most one connection may have (MAX_AUDIO_SECONDS); connect again`,
    );
  }

  /** After the budget is spent, the error has gone out: the connection ends (at once if the client reads nothing). */
  private endIfSpent(): void {
    if (this.audioSeconds < this.deps.limits.maxAudioSeconds || this.socket.writableEnded) return;
    this.socket.end();
    setTimeout(() => this.socket.destroy(), this.deps.limits.writeStallMs).unref();
  }

  /** Logs a request for the dashboard; a failure to log never fails the request. */
  private async log(entry: {
    voice: string | undefined;
    characters: number;
    audioSeconds: number;
    outcome: string;
    payer: WyomingPayer | null;
  }): Promise<void> {
    if (entry.outcome === 'cancelled') return;
    const payer = entry.payer ?? (await this.deps.link.payer().catch(() => null));
    await this.deps.link
      .record({
        keyId: payer?.keyId ?? null,
        client: this.client,
        voiceId: entry.voice ?? null,
        characters: entry.characters,
        audioSeconds: entry.audioSeconds,
        outcome: entry.outcome,
      })
      .catch((err: unknown) => this.deps.log.warn({ err }, 'Wyoming: could not log a request'));
  }

  /** A request refused: Wyoming's error event, with the catalogue's code. */
  private async error(err: AppError): Promise<void> {
    await this.send('error', wyomingError(errorBody(err.code, err.message)));
  }

  private send(type: string, data: Record<string, unknown>, payload?: Uint8Array): Promise<void> {
    return this.write(encodeEvent(type, data, payload));
  }

  /** Writes an encoded event, waiting while the client is not reading; one that stops reading for good is cut. */
  private async write(event: Buffer): Promise<void> {
    if (this.socket.destroyed || this.socket.writableEnded) return;
    this.active();
    if (this.socket.write(event)) return;
    await new Promise<void>((resolve) => {
      const stall = setTimeout(() => {
        this.deps.log.info({ client: this.client }, 'Wyoming: client stopped reading its answers; connection closed');
        this.socket.destroy();
      }, this.deps.limits.writeStallMs);
      const done = (): void => {
        clearTimeout(stall);
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
  }
}
