// A Wyoming TTS server (the protocol Home Assistant speaks to voice services) on its own TCP port. Every
// synthesis goes through SpeechService, billed to the key in WYOMING_API_KEY: the protocol has no authentication,
// so the port binds to loopback unless WYOMING_HOST says otherwise.
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { ApiKeyService } from '../accounts/api-keys.ts';
import { AppError } from '../errors.ts';
import type { SpeechCaller, SpeechService } from '../speech/speech-service.ts';
import { SentenceStream, type ReadySentence } from '../synth/text/incremental.ts';
import type { Break } from '../synth/text/split.ts';
import type { VoiceLibrary } from '../voices/library.ts';
import { encodeEvent, FrameError, FrameReader, type WyomingEvent } from './frames.ts';
import { ttsInfo } from './info.ts';

export interface WyomingDeps {
  speech: SpeechService;
  voices: VoiceLibrary;
  apiKeys: ApiKeyService;
  log: FastifyBaseLogger;
  maxTextChars: number;
  version: string;
}

export interface WyomingOptions {
  host: string;
  port: number;
  /** The full API key whose owner is billed; checked once at start and again before each synthesis. */
  apiKey: string;
}

/** Connections served at once; more wait in the kernel's backlog. */
const MAX_CONNECTIONS = 64;
/** A connection that sends nothing for this long is closed. */
const IDLE_MS = 5 * 60_000;

function voiceName(data: Record<string, unknown>): string | undefined {
  const voice = data.voice;
  if (typeof voice !== 'object' || voice === null) return undefined;
  const name = (voice as Record<string, unknown>).name;
  return typeof name === 'string' && name.length > 0 ? name : undefined;
}

export class WyomingServer {
  private server: Server | undefined;
  private caller: SpeechCaller | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly deps: WyomingDeps) {}

  /** Checks the key whose owner is billed (throws when it is unknown or revoked); called before start. */
  async authorize(apiKey: string): Promise<void> {
    const principal = await this.deps.apiKeys.authenticate(apiKey);
    if (!principal) throw new Error('WYOMING_API_KEY is not a valid, unrevoked API key: create one in the dashboard and set it whole');
    if (!principal.scopes.includes('speech')) throw new Error(`WYOMING_API_KEY lacks the "speech" scope (it has: ${principal.scopes.join(', ')}): create a key that may speak`);
    this.caller = { userId: principal.userId, keyId: principal.keyId };
  }

  /** Starts listening; the key must have been authorized. */
  async start(options: Omit<WyomingOptions, 'apiKey'>): Promise<AddressInfo> {
    if (!this.caller) throw new Error('the Wyoming server starts only after its key is authorized');
    const server = createServer((socket) => this.serve(socket));
    server.maxConnections = MAX_CONNECTIONS;
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    this.deps.log.info({ host: address.address, port: address.port }, 'Wyoming TTS server listening');
    return address;
  }

  address(): AddressInfo | undefined {
    return (this.server?.address() as AddressInfo | null) ?? undefined;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    const abort = new AbortController();
    const reader = new FrameReader();
    let work = Promise.resolve();
    const connection = new Connection(this.deps, this.caller as SpeechCaller, socket, abort.signal);
    socket.setTimeout(IDLE_MS, () => socket.destroy());
    socket.on('data', (bytes: Buffer) => {
      let events: WyomingEvent[];
      try {
        events = reader.push(bytes);
      } catch (err) {
        // A broken frame cannot be skipped (its lengths are not to be trusted): this connection ends, others go on.
        this.deps.log.info({ reason: err instanceof FrameError ? err.message : String(err) }, 'Wyoming: bad frame, connection closed');
        socket.destroy();
        return;
      }
      // Events are handled in order; synthesis of one finishes before the next event is looked at.
      for (const event of events) work = work.then(() => connection.handle(event)).catch(() => void socket.destroy());
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      abort.abort();
      this.sockets.delete(socket);
    });
  }
}

/** A synthesize-start … synthesize-stop stream: its sentences are cut as the WebSocket's input streaming cuts them. */
interface TextStream {
  voice: string | undefined;
  text: SentenceStream;
  /** The break after the last sentence spoken: the pause before the next. */
  lastBreak: Break | undefined;
  audioStarted: boolean;
}

/** One client: its streaming state and the events it is sent. */
class Connection {
  private stream: TextStream | undefined;

  constructor(
    private readonly deps: WyomingDeps,
    private readonly caller: SpeechCaller,
    private readonly socket: Socket,
    private readonly signal: AbortSignal,
  ) {}

  async handle(event: WyomingEvent): Promise<void> {
    if (this.signal.aborted) return;
    const { data } = event;
    switch (event.type) {
      case 'describe':
        await this.send('info', ttsInfo(await this.deps.voices.list({}, this.caller.userId), this.deps.version));
        return;
      case 'ping':
        await this.send('pong', {});
        return;
      case 'synthesize': {
        // Sent beside the streaming events for servers that do not stream; the stream already carries the text.
        if (this.stream) return;
        const text = typeof data.text === 'string' ? data.text : '';
        if (await this.speak(text, voiceName(data), false)) await this.send('audio-stop', {});
        return;
      }
      case 'synthesize-start':
        this.stream = { voice: voiceName(data), text: new SentenceStream(), lastBreak: undefined, audioStarted: false };
        return;
      case 'synthesize-chunk': {
        const stream = this.stream;
        if (!stream) return this.error('validation', 'synthesize-chunk without synthesize-start');
        const piece = typeof data.text === 'string' ? data.text : '';
        if (stream.text.pendingChars + piece.length > this.deps.maxTextChars) {
          stream.text.reset();
          return this.error('text_too_long', `streamed text has no sentence end within ${this.deps.maxTextChars} characters`);
        }
        // A sentence is spoken as soon as it is complete: once the next one has begun.
        return this.speakSentences(stream, stream.text.push(piece));
      }
      case 'synthesize-stop': {
        const stream = this.stream;
        if (!stream) return this.error('validation', 'synthesize-stop without synthesize-start');
        await this.speakSentences(stream, stream.text.flush());
        this.stream = undefined;
        if (stream.audioStarted) await this.send('audio-stop', {});
        await this.send('synthesize-stopped', {});
        return;
      }
      default:
        // Events for other services (or newer ones) are not ours to answer.
        return;
    }
  }

  /**
   * Speaks a stream's newly complete sentences in order, one request each, each after the pause its
   * predecessor's end calls for (as the WebSocket's input streaming does). A failure (one `error` event) drops
   * the rest of them: they would fail alike.
   */
  private async speakSentences(stream: TextStream, sentences: ReadySentence[]): Promise<void> {
    for (const sentence of sentences) {
      const spoken = await this.speak(sentence.text, stream.voice, stream.audioStarted, stream.lastBreak);
      stream.lastBreak = sentence.break;
      if (!spoken) return;
      stream.audioStarted = true;
    }
  }

  /**
   * Speaks `text` as audio-chunks, after an audio-start unless one was already sent; returns whether it was
   * spoken (and so audio has started). Failures become an `error` event.
   */
  private async speak(text: string, voiceId: string | undefined, audioStarted: boolean, pauseBefore?: Break): Promise<boolean> {
    try {
      const { keyId } = this.caller;
      if (keyId && !(await this.deps.apiKeys.isActive(keyId))) throw new AppError('unauthorized', 'WYOMING_API_KEY has been revoked');
      const spoken = await this.deps.speech.speak(this.caller, { text, voiceId, format: 'pcm', door: 'wyoming', pauseBefore }, this.signal);
      const format = { rate: spoken.info.sampleRate, width: 2, channels: 1 };
      if (!audioStarted) await this.send('audio-start', { ...format, timestamp: 0 });
      for await (const chunk of spoken.chunks) {
        if (chunk.bytes.length > 0) await this.send('audio-chunk', format, chunk.bytes);
      }
      return true;
    } catch (err) {
      if (this.signal.aborted) return false;
      if (err instanceof AppError) await this.error(err.code, err.message);
      else {
        this.deps.log.error({ err }, 'Wyoming synthesis failed');
        await this.error('internal', 'synthesis failed');
      }
      return false;
    }
  }

  private async error(code: string, text: string): Promise<void> {
    await this.send('error', { text, code });
  }

  /** Writes an event, waiting while the client is not reading. */
  private async send(type: string, data: Record<string, unknown>, payload?: Uint8Array): Promise<void> {
    if (this.socket.destroyed) return;
    if (!this.socket.write(encodeEvent(type, data, payload))) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          this.socket.off('drain', done);
          this.socket.off('close', done);
          resolve();
        };
        this.socket.on('drain', done);
        this.socket.on('close', done);
      });
    }
  }
}
