import { createHash } from 'node:crypto';
import {
  BARE_G711,
  codecChoiceProblem,
  FORMATS,
  isEncodeFormat,
  withKnownWavLength,
  type EncodeFormat,
  type FormatInfo,
} from '../audio/encoders/index.ts';
import type { UsageService } from '../accounts/usage.ts';
import { AppError } from '../errors.ts';
import {
  DEFAULT_VOICE_ID,
  MAX_VOICE_ID_CHARS,
  RATE_FORMATS,
  SAMPLE_RATES,
  SPEECH_FORMATS,
  SPEED_DEFAULT,
  SPEED_MAX,
  SPEED_MIN,
  type OpenAiVoiceName,
  type WordTiming,
} from '../schemas/speech.ts';
import type { LexiconService } from '../lexicons/lexicon-service.ts';
import type { Metrics, SpeechEndpoint } from '../metrics/metrics.ts';
import type { Phonemized } from '../synth/phonemize.ts';
import { isKnownVoice } from '../synth/registry.ts';
import { renderPcm } from '../synth/render-pcm.ts';
import { SynthesisError, type SpeechChunk, type SpeechRequest, type Synthesizer } from '../synth/synthesizer.ts';
import type { VoiceSpec } from '../synth/voice-spec.ts';
import type { Break } from '../synth/text/split.ts';
import type { LexiconEntry } from '../synth/text/lexicon.ts';
import { billedCharacters } from '../jobs/document/audio-estimate.ts';
import type { VoiceLibrary } from '../voices/library.ts';
import type { Gender, Voice } from '../voices/voice.ts';
import { previewText } from '../schemas/previews.ts';
import { SpeechCache } from './cache.ts';
import { voiceVersion } from '../synth/engine-versions.ts';
import { spokenLengthBefore } from '../synth/text/script.ts';
import { parseRequestText, type TextType } from './markup.ts';
import { chooseVoice, OPENAI_VOICES, type VoiceChoice } from './openai-voices.ts';
import { naturalVoiceFor } from './openai-natural.ts';
import type { FairScheduler, ReleaseSlot } from './scheduler.ts';

type SpeechMetrics = Pick<Metrics, 'meterSpeech' | 'rateLimited'>;

/** Who pays for the speech: usage is counted per user and per key (null for a dashboard session). */
export interface SpeechCaller {
  userId: string;
  keyId: string | null;
}

/** One request for speech, already parsed by its door (types are checked there; values are checked here). */
export interface SpeechInput {
  text: string;
  /** A built-in voice or one of the caller's own; "default" when absent. */
  voiceId?: string;
  speed?: number;
  format: EncodeFormat;
  /** Output rate in Hz (SAMPLE_RATES) for pcm and wav; the format's own rate when absent. */
  sampleRate?: number;
  /** mulaw and alaw as bare G.711 bytes, without the WAV header (the ElevenLabs door: what telephony takes). */
  headerless?: boolean;
  /**
   * A codec's own choices, as ElevenLabs' output_format names them: an MP3 rate and bitrate, an Opus bitrate
   * (kbit/s). Checked against what the encoders write (CODEC_CHOICES); sampleRate above stays pcm and wav's.
   */
  codec?: { sampleRate?: number; bitrate?: number };
  /** When given, the voice must be spoken by this engine. */
  engine?: string;
  /** Which front door asked (the metrics label that tells them apart). */
  door: SpeechEndpoint;
  /**
   * The bytes form one file a player opens (an HTTP download), rather than frames a client reassembles. FLAC is
   * then sent whole, with its exact length in the header: its streamed form leaves players without a duration.
   */
  download?: boolean;
  /** The caller's lexicons to apply, by name; absent: the account's default lexicon, if any. */
  lexicons?: string[];
  /** A pause before the speech, as after a sentence ending so (input streaming speaks one sentence per request). */
  pauseBefore?: Break;
  /**
   * Hears the request's place in the fair queue (1 = next) when every synthesis slot is busy, before its first
   * audio, and again whenever the place changes. Not called when the request starts at once.
   */
  onQueued?: (position: number) => void;
  /** 'ssml' parses the text as SSML; by default an SSML document (`<speak`, after an optional XML declaration) is SSML and plain text may carry `<break/>`. */
  textType?: TextType;
}

/** A long-form job's piece, rendered and not yet billed. */
export interface RenderedPiece {
  /** 16-bit little-endian PCM, mono, 24 000 Hz. */
  pcm: Uint8Array;
  samples: number;
  characters: number;
  /** Each spoken word's time in the piece's audio and its span in the piece's text (a read-along book's timings). */
  words: WordTiming[];
  /** Seconds of pauses its text asks for (its breaks and the pause it starts with): silence that is meant. */
  pauseSeconds: number;
  /** Records the piece's usage; the caller calls it once, after storing the piece. */
  bill(): Promise<void>;
}

/** A synthesis under way: its first chunk has been rendered, so the early failures have already been thrown. */
export interface Speech {
  /** The voice actually used ("default" resolved). */
  voiceId: string;
  engine: string;
  format: EncodeFormat;
  /** Content type, sample rate (the one chosen) and file extension of `format`. */
  info: FormatInfo;
  characters: number;
  /**
   * The encoded audio, to be read once. Usage is recorded after the last chunk, so only speech delivered in full
   * is counted; stopping early (or the caller's signal) cancels the work in the worker. Throws `audio_too_long`
   * mid-stream once the audio would pass MAX_AUDIO_SECONDS.
   */
  chunks: AsyncIterable<SpeechChunk>;
}

export interface SpeechServiceDeps {
  synthesizer: Synthesizer;
  voices: VoiceLibrary;
  usage: UsageService;
  metrics: SpeechMetrics;
  maxTextChars: number;
  /** Audio seconds one request may produce (text that spells out to far more speech than its length suggests). */
  maxAudioSeconds: number;
  /** Resolves a request's lexicon names (or the account default) to the rules the worker applies. */
  lexicons?: Pick<LexiconService, 'rulesFor'>;
  /** Who renders next when every slot is busy, and the per-key concurrency limit. */
  scheduler: FairScheduler;
  /** Finished syntheses kept for identical requests; null when CACHE_MB is 0. */
  cache: SpeechCache | null;
}

/** The longest pause a piece may start with (a paragraph's, at the slowest speed): silence its check allows. */
const PAUSE_BEFORE_ALLOWANCE_SECONDS = 1.5;

/** Previews are small downloads the browser plays at once. */
const PREVIEW_FORMAT = 'mp3';

/** The fair queue shares out per API key; a dashboard session (no key) counts for its user. */
function schedulingKey(caller: SpeechCaller): string {
  return caller.keyId !== null ? `key:${caller.keyId}` : `user:${caller.userId}`;
}

/** A worker's refusal as the catalogue error it stands for; anything else unchanged. */
function speechError(err: unknown): unknown {
  if (err instanceof SynthesisError && err.kind === 'TextTooLongError') return new AppError('text_too_long', err.message);
  // The voice was resolved, then its model went (VOICES_DIR changed) before a worker took the request.
  if (err instanceof SynthesisError && err.kind === 'UnknownVoiceError') return new AppError('voice_not_found', err.message);
  // A neural model made far more audio than its text can speak (engines/onnx.ts checkRenderLength).
  if (err instanceof SynthesisError && err.kind === 'RenderTooLongError') return new AppError('audio_too_long', err.message);
  return err;
}

/** A cached answer, replayed chunk by chunk: the same bytes, word timings and marks as the first time. */
async function* replay(chunks: readonly SpeechChunk[]): AsyncGenerator<SpeechChunk> {
  yield* chunks;
}

/** WAV files (mu-law and A-law come in WAV too, unless sent bare). */
function isWavFile(format: EncodeFormat): boolean {
  return format === 'wav' || format === 'mulaw' || format === 'alaw';
}

/** Cached chunks of a streamed WAV with the header's sizes filled in (withKnownWavLength); timings unchanged. */
function withWavLength(chunks: readonly SpeechChunk[]): readonly SpeechChunk[] {
  const bytes = withKnownWavLength(chunks.map((c) => c.bytes));
  if (chunks.length === 0 || bytes[0] === chunks[0].bytes) return chunks;
  const fixed = chunks.map((c, i) => ({ ...c, bytes: bytes[i] }));
  // The pad byte of an odd data length, carried by the last chunk.
  if (bytes.length > chunks.length)
    fixed[fixed.length - 1] = { ...fixed[fixed.length - 1], bytes: Buffer.concat([bytes[chunks.length - 1], bytes[chunks.length]]) };
  return fixed;
}

/** The rate `format` is delivered at: the client's choice for pcm and wav, else the format's own. */
function checkSampleRate(format: EncodeFormat, requested: number | undefined): number {
  const own = FORMATS[format].sampleRate;
  if (requested === undefined) return own;
  if (!(SAMPLE_RATES as readonly number[]).includes(requested)) {
    throw new AppError('validation', `sample_rate must be one of: ${SAMPLE_RATES.join(', ')}`);
  }
  if (requested !== own && !(RATE_FORMATS as readonly string[]).includes(format)) {
    throw new AppError('validation', `sample_rate applies to ${RATE_FORMATS.join(' and ')}; ${format} is always ${own} Hz`);
  }
  return requested;
}

/**
 * The one speech path behind every front door: validation, voice resolution, limits, metering and usage live
 * here, so a door only parses its request and frames the bytes.
 */
export class SpeechService {
  constructor(private readonly deps: SpeechServiceDeps) {}

  /** The engines a request may name. */
  engineIds(): string[] {
    return this.deps.synthesizer.engines.map((e) => e.id);
  }

  /** Which of our voices OpenAI's (model, voice) pair means (see openai-voices.ts). */
  chooseOpenAiVoice(model: string, voice: string | { id: string }): VoiceChoice {
    const { voices } = this.deps;
    const genderOf = (name: OpenAiVoiceName): Gender => voices.catalogVoice(OPENAI_VOICES.flite[name])?.gender ?? 'neutral';
    return chooseVoice(model, voice, {
      engineIds: this.engineIds(),
      naturalFor: (name, builtinId, engine) => {
        const gender = voices.catalogVoice(builtinId)?.gender ?? genderOf(name);
        const candidates = voices.naturalStandIns(gender).filter((v) => engine === undefined || v.engine === engine);
        return naturalVoiceFor(name, gender, candidates, genderOf);
      },
    });
  }

  /**
   * Throws catalogue errors for a bad request (and `concurrency_limited` past MAX_CONCURRENT_PER_KEY); the
   * synthesis is cancelled when `signal` aborts. Waits its turn in the fair queue when every slot is busy.
   */
  speak(caller: SpeechCaller, input: SpeechInput, signal: AbortSignal): Promise<Speech> {
    return this.deliver(caller, input, signal, { billed: true });
  }

  /**
   * Checks what a long-form job will speak with before it is accepted: the voice (built-in or the caller's own),
   * the speed, the format and the lexicons, as a request would be checked. Returns the voice id to render with.
   */
  async prepareJob(
    caller: SpeechCaller,
    input: { voiceId?: string; speed?: number; format: EncodeFormat; lexicons?: string[] },
  ): Promise<{ voiceId: string; speed: number; lexicon: LexiconEntry[] | undefined }> {
    const speed = this.checkRequest({ text: '.', format: input.format, door: 'jobs', speed: input.speed });
    const voice = await this.resolveVoice(caller, input);
    const lexicon = await this.deps.lexicons?.rulesFor(caller.userId, input.lexicons);
    return { voiceId: voice.id, speed, lexicon };
  }

  /** The language a voice speaks (BCP 47), or null if it is gone: what a read-along book declares. */
  async voiceLanguage(userId: string, voiceId: string): Promise<string | null> {
    return (await this.deps.voices.resolve(voiceId, userId))?.language ?? null;
  }

  /**
   * One piece of a long-form job, rendered whole as 16-bit PCM at 24 kHz: at background priority (after every
   * interactive request waiting for a slot, and off the worker thread kept for them) and never from or into the
   * cache. Its usage is recorded by `bill`, which the job runner calls once the piece is stored, so a piece
   * rendered again after a crash is billed once.
   */
  async renderPiece(caller: SpeechCaller, input: Omit<SpeechInput, 'format' | 'door'>, signal: AbortSignal): Promise<RenderedPiece> {
    const { parsed } = await this.resolveRequest(caller, { ...input, format: 'pcm', door: 'jobs' });
    const speech = await this.deliver(caller, { ...input, format: 'pcm', door: 'jobs' }, signal, { billed: false, background: true });
    const parts: Uint8Array[] = [];
    const words: WordTiming[] = [];
    let bytes = 0;
    for await (const chunk of speech.chunks) {
      parts.push(chunk.bytes);
      bytes += chunk.bytes.length;
      if (chunk.words) words.push(...chunk.words);
    }
    const pcm = new Uint8Array(bytes);
    let at = 0;
    for (const p of parts) {
      pcm.set(p, at);
      at += p.length;
    }
    const { usage, lexicons } = this.deps;
    // Billed as the audio it holds: its silence and expansions count, by the measure of the job's audio_seconds.
    const lexicon = await lexicons?.rulesFor(caller.userId, input.lexicons);
    const billed = billedCharacters(input.text, input.textType === 'ssml', lexicon, speech.characters);
    return {
      pcm,
      samples: bytes >> 1,
      characters: speech.characters,
      words,
      pauseSeconds: parsed.breakSeconds + (input.pauseBefore && input.pauseBefore !== 'none' ? PAUSE_BEFORE_ALLOWANCE_SECONDS : 0),
      bill: () => usage.record(caller.userId, caller.keyId, billed),
    };
  }

  /**
   * The identity of a job's piece: a hash of everything that decides its audio, the request as the worker
   * would get it (text, voice, speed, lexicon rules, pause, markup) with the engine's and the voice files'
   * versions and the output rate. Two pieces with the same key are the same audio, so a stored one stands in.
   */
  async pieceKey(caller: SpeechCaller, input: Omit<SpeechInput, 'format' | 'door'>): Promise<string> {
    const { request, voice } = await this.resolveRequest(caller, { ...input, format: 'pcm', door: 'jobs' });
    const versions = [voice.spec, ...(request.voices ?? []).map((v) => v.spec)].map(voiceVersion);
    return `${SpeechCache.keyOf(request, voice)}.${createHash('sha256')
      .update(JSON.stringify([versions, FORMATS.pcm.sampleRate]))
      .digest('base64url')
      .slice(0, 16)}`;
  }

  /**
   * A dashboard voice preview: only the fixed preview line of a language (PREVIEW_LINES), so it cannot be used
   * as free synthesis of any text; served from the cache after its first rendering and not counted as usage.
   * `language` picks the line (a bred child's parents speak the child's); the voice's own by default.
   */
  async preview(userId: string, voiceId: string, language: string | undefined, signal: AbortSignal): Promise<Speech> {
    const caller = { userId, keyId: null };
    const voice = await this.resolveVoice(caller, { voiceId });
    const text = previewText({ language: language ?? voice.language });
    return this.deliver(caller, { text, voiceId: voice.id, format: PREVIEW_FORMAT, door: 'preview', download: true }, signal, {
      billed: false,
    });
  }

  /**
   * Speaks `text` with a voice that is not stored yet (a clone being fitted) as mono float32 samples at
   * RENDER_RATE, for measuring. It is worker time like any speech, so it takes a slot in the caller's turn of
   * the fair queue (and one of the key's MAX_CONCURRENT_PER_KEY) while it renders; it is not billed, since the
   * caller asked for a voice, not for this audio, and it never comes from or goes into the cache.
   */
  renderForFit(caller: SpeechCaller, voice: VoiceSpec, text: string, signal: AbortSignal): Promise<Float32Array> {
    return this.inSlot(caller, signal, () => renderPcm(this.deps.synthesizer, voice, text, signal));
  }

  /** A request checked and resolved as the worker will be given it: voices, lexicons, markup, rates. */
  private async resolveRequest(caller: SpeechCaller, input: SpeechInput) {
    const { maxAudioSeconds } = this.deps;
    const { text, format } = input;
    const speed = this.checkRequest(input);
    const sampleRate = input.codec?.sampleRate ?? checkSampleRate(format, input.sampleRate);
    const bitrate = input.codec?.bitrate;
    const codecProblem = input.codec ? codecChoiceProblem(format, sampleRate, bitrate) : null;
    if (codecProblem) throw new AppError('validation', codecProblem);
    const bare = input.headerless === true && (format === 'mulaw' || format === 'alaw') ? BARE_G711[format] : undefined;
    const parsed = parseRequestText(text, input.textType, this.deps.maxTextChars);
    const characters = parsed.spokenChars;
    if (characters > this.deps.maxTextChars) {
      throw new AppError(
        'text_too_long',
        `text is ${characters} characters${parsed.script ? ' (spoken, markup aside)' : ''}; the limit is ${this.deps.maxTextChars}`,
      );
    }
    // Break silence is audio whatever the words: counted against the cap before any of it is made.
    if (parsed.breakSeconds > maxAudioSeconds) {
      throw new AppError(
        'audio_too_long',
        `the breaks alone add up to ${Math.round(parsed.breakSeconds)} s of silence; the limit is ${maxAudioSeconds} s of audio (MAX_AUDIO_SECONDS)`,
      );
    }
    const voice = await this.resolveVoice(caller, input);
    const lexicon = await this.deps.lexicons?.rulesFor(caller.userId, input.lexicons);
    // <voice name> switches resolve like voice_id: built-in or the caller's own.
    const voices = await Promise.all(
      parsed.voiceNames.map(async (name) => ({
        name,
        spec: (await this.resolveVoice(caller, { ...input, voiceId: name, engine: undefined })).spec,
      })),
    );
    const request: SpeechRequest = {
      text,
      voice: voice.spec,
      speed,
      format,
      // A download is one file: a short FLAC or WAV then carries its real lengths in the header (a stream cannot;
      // a long one streams rather than hold its first byte back for the whole render, see pipeline.ts).
      buffered: input.download === true && (format === 'flac' || (isWavFile(format) && !bare)),
      ...(lexicon ? { lexicon, maxChars: this.deps.maxTextChars } : {}),
      ...(input.pauseBefore ? { pauseBefore: input.pauseBefore } : {}),
      // Only a rate other than the format's own travels, so the same audio keeps one cache key.
      ...(sampleRate !== FORMATS[format].sampleRate ? { sampleRate } : {}),
      ...(bitrate !== undefined ? { bitrate } : {}),
      ...(bare ? { headerless: true } : {}),
      ...(parsed.script ? { script: parsed.script } : {}),
      ...(voices.length > 0 ? { voices } : {}),
    };
    return { request, voice, parsed, characters, sampleRate, bare };
  }

  private async deliver(
    caller: SpeechCaller,
    input: SpeechInput,
    signal: AbortSignal,
    how: { billed: boolean; background?: boolean },
  ): Promise<Speech> {
    const { billed } = how;
    const background = how.background === true;
    const { synthesizer, usage, metrics, maxAudioSeconds, cache } = this.deps;
    const startedAt = performance.now();
    const { format } = input;
    const { request, voice, parsed, characters, sampleRate, bare } = await this.resolveRequest(caller, input);
    const labels = { endpoint: input.door, engine: voice.engine, characters, startedAt };
    const cacheKey = cache && !background ? SpeechCache.keyOf(request, voice) : null;
    const cached = cache && cacheKey ? cache.get(cacheKey) : undefined;
    // A cached answer needs no worker, so it takes no slot and does not count against the key's concurrency.
    let releaseSlot: ReleaseSlot = () => undefined;
    if (!cached) releaseSlot = await this.acquireSlot(caller, signal, background ? undefined : input.onQueued, background);
    const recorder = cache && cacheKey && !cached ? cache.recorder(cacheKey) : null;
    // A cached streamed WAV has a known length now: replayed with it in the header.
    const source = cached
      ? replay(isWavFile(format) && !bare ? withWavLength(cached) : cached)
      : synthesizer.speak(request, signal, { background });
    const iterator = metrics.meterSpeech(source, labels)[Symbol.asyncIterator]();
    let first: IteratorResult<SpeechChunk>;
    try {
      // Rendered before the caller commits to an answer, so every failure that can happen early is still an error reply.
      first = await iterator.next();
    } catch (err) {
      releaseSlot();
      throw speechError(err);
    }
    // A caller that hangs up before reading a chunk never starts `chunks`; closing here still frees the worker
    // (and then its slot).
    const release = (): void => void (iterator.return?.() ?? Promise.resolve(undefined)).catch(() => undefined).finally(releaseSlot);
    signal.addEventListener('abort', release, { once: true });

    // Characters of the request whose speech was delivered: up to the end of the last word sent.
    const deliveredCharacters = (sourceEnd: number): number =>
      Math.min(characters, parsed.script ? spokenLengthBefore(parsed.script, sourceEnd) : sourceEnd);

    async function* chunks(): AsyncGenerator<SpeechChunk> {
      try {
        let seconds = 0;
        let sourceEnd = 0;
        for (let next = first; !next.done; next = await iterator.next()) {
          // Checked before the chunk goes out, so a caller never gets more than the cap. What was delivered up to
          // there is counted as usage (a cancel, the caller's choice, is not).
          seconds += next.value.seconds;
          if (seconds > maxAudioSeconds) {
            if (billed && sourceEnd > 0) await usage.record(caller.userId, caller.keyId, deliveredCharacters(sourceEnd));
            throw new AppError(
              'audio_too_long',
              `the speech would be longer than ${maxAudioSeconds} s of audio (MAX_AUDIO_SECONDS); it was stopped there`,
            );
          }
          for (const w of next.value.words ?? []) sourceEnd = Math.max(sourceEnd, w.offset + w.length);
          recorder?.add(next.value);
          yield next.value;
        }
        recorder?.keep();
        if (billed) await usage.record(caller.userId, caller.keyId, characters);
      } finally {
        signal.removeEventListener('abort', release);
        await iterator.return?.();
        releaseSlot();
      }
    }
    const info = { ...FORMATS[format], sampleRate, ...bare };
    return { voiceId: voice.id, engine: voice.engine, format, info, characters, chunks: chunks() };
  }

  /**
   * POST /v1/phonemize: the text as the voice's engine is given it (the caller's lexicons applied, normalized)
   * and each word's phonemes. Checked and resolved like speech; worked out in a worker.
   */
  async phonemize(
    caller: SpeechCaller,
    input: { text: string; voiceId?: string; lexicons?: string[] },
    signal: AbortSignal,
  ): Promise<Phonemized & { voiceId: string; engine: string }> {
    this.checkText(input.text);
    const voice = await this.resolveVoice(caller, input);
    const lexicon = await this.deps.lexicons?.rulesFor(caller.userId, input.lexicons);
    // Worker time like speech: one of the key's MAX_CONCURRENT_PER_KEY, in the same fair queue.
    const result = await this.inSlot(caller, signal, () =>
      this.deps.synthesizer.phonemize({
        text: input.text,
        voice: voice.spec,
        ...(lexicon ? { lexicon, maxChars: this.deps.maxTextChars } : {}),
      }),
    );
    return { voiceId: voice.id, engine: voice.engine, ...result };
  }

  /** Work done whole in a worker, holding one of the caller's synthesis slots while it runs. */
  private async inSlot<T>(caller: SpeechCaller, signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    const releaseSlot = await this.acquireSlot(caller, signal);
    try {
      return await work();
    } catch (err) {
      throw speechError(err);
    } finally {
      releaseSlot();
    }
  }

  /** A synthesis slot for the caller, in the fair queue (429 past MAX_CONCURRENT_PER_KEY). */
  private async acquireSlot(
    caller: SpeechCaller,
    signal: AbortSignal,
    onQueued?: (position: number) => void,
    background = false,
  ): Promise<ReleaseSlot> {
    try {
      return background
        ? await this.deps.scheduler.acquire(`background:${schedulingKey(caller)}`, signal, undefined, 'background')
        : await this.deps.scheduler.acquire(schedulingKey(caller), signal, onQueued);
    } catch (err) {
      if (err instanceof AppError && err.code === 'concurrency_limited') this.deps.metrics.rateLimited('concurrency');
      throw err;
    }
  }

  private checkText(text: string): void {
    if (text.trim().length === 0) throw new AppError('validation', 'text must not be empty');
    if (text.length > this.deps.maxTextChars) {
      throw new AppError('text_too_long', `text is ${text.length} characters; the limit is ${this.deps.maxTextChars}`);
    }
  }

  /** The value checks every door shares; returns the speed to use. */
  private checkRequest(input: SpeechInput): number {
    const { text, format } = input;
    // The length is checked in speak() once markup is parsed: SSML is limited by what it speaks.
    if (text.trim().length === 0) throw new AppError('validation', 'text must not be empty');
    const speed = input.speed ?? SPEED_DEFAULT;
    if (!Number.isFinite(speed) || speed < SPEED_MIN || speed > SPEED_MAX) {
      throw new AppError('validation', `speed must be a number from ${SPEED_MIN} to ${SPEED_MAX}`);
    }
    if (!isEncodeFormat(format)) {
      throw new AppError(
        'validation',
        `format ${JSON.stringify(String(format).slice(0, 40))} is not supported; use one of: ${SPEECH_FORMATS.join(', ')}`,
      );
    }
    return speed;
  }

  /** A voice the caller may use (built-in or their own), spoken by the requested engine if one was named. */
  private async resolveVoice(caller: SpeechCaller, input: Pick<SpeechInput, 'voiceId' | 'engine'>): Promise<Voice> {
    const voiceId = input.voiceId ?? DEFAULT_VOICE_ID;
    if (voiceId.length === 0 || voiceId.length > MAX_VOICE_ID_CHARS)
      throw new AppError('validation', 'voice_id must be a non-empty string');
    const voice = await this.deps.voices.resolve(voiceId, caller.userId);
    // The one existence check on the way to speech: an own voice whose base the engine no longer has (a natural
    // model removed from VOICES_DIR) is as unknown as an id nobody made; nothing downstream checks again.
    if (!voice || !isKnownVoice(voice.spec)) throw new AppError('voice_not_found', `No voice "${voiceId.slice(0, 100)}"`);
    const { engine } = input;
    if (engine !== undefined) {
      const engines = this.engineIds();
      if (!engines.includes(engine)) throw new AppError('validation', `engine must be one of: ${engines.join(', ')}`);
      if (engine !== voice.engine)
        throw new AppError('validation', `voice "${voice.id}" is spoken by the ${voice.engine} engine, not ${engine}`);
    }
    return voice;
  }
}
