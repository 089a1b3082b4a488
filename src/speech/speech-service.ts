import { FORMATS, isEncodeFormat, type EncodeFormat, type FormatInfo } from '../audio/encoders/index.ts';
import type { UsageService } from '../accounts/usage.ts';
import { AppError } from '../errors.ts';
import { DEFAULT_VOICE_ID, MAX_VOICE_ID_CHARS, SPEED_DEFAULT, SPEED_MAX, SPEED_MIN } from '../schemas/speech.ts';
import type { Metrics, SpeechEndpoint } from '../metrics/metrics.ts';
import type { SpeechChunk, Synthesizer } from '../synth/synthesizer.ts';
import type { VoiceLibrary } from '../voices/library.ts';
import type { Voice } from '../voices/voice.ts';
import { chooseVoice, type VoiceChoice } from './openai-voices.ts';

type SpeechMetrics = Pick<Metrics, 'meterSpeech'>;

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
  /** When given, the voice must be spoken by this engine. */
  engine?: string;
  /** Which front door asked (the metrics label that tells them apart). */
  door: SpeechEndpoint;
  /**
   * The bytes form one file a player opens (an HTTP download), rather than frames a client reassembles. FLAC is
   * then sent whole, with its exact length in the header: its streamed form leaves players without a duration.
   */
  download?: boolean;
}

/** A synthesis under way: its first chunk has been rendered, so the early failures have already been thrown. */
export interface Speech {
  /** The voice actually used ("default" resolved). */
  voiceId: string;
  engine: string;
  format: EncodeFormat;
  /** Content type, sample rate and file extension of `format`. */
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
    return chooseVoice(model, voice, { engineIds: this.engineIds(), neuralStandIn: (id) => this.deps.voices.neuralStandIn(id) });
  }

  /** Throws catalogue errors for a bad request; the synthesis is cancelled when `signal` aborts. */
  async speak(caller: SpeechCaller, input: SpeechInput, signal: AbortSignal): Promise<Speech> {
    const { synthesizer, usage, metrics, maxAudioSeconds } = this.deps;
    const { text, format } = input;
    const speed = this.checkRequest(input);
    const voice = await this.resolveVoice(caller, input);
    const request = { text, voice: voice.spec, speed, format, buffered: input.download === true && format === 'flac' };
    const labels = { endpoint: input.door, engine: voice.engine, characters: text.length };
    const iterator = metrics.meterSpeech(synthesizer.speak(request, signal), labels)[Symbol.asyncIterator]();
    // Rendered before the caller commits to an answer, so every failure that can happen early is still an error reply.
    const first = await iterator.next();
    // A caller that hangs up before reading a chunk never starts `chunks`; closing here still frees the worker.
    const release = (): void => void iterator.return?.()?.catch(() => undefined);
    signal.addEventListener('abort', release, { once: true });

    async function* chunks(): AsyncGenerator<SpeechChunk> {
      try {
        let seconds = 0;
        for (let next = first; !next.done; next = await iterator.next()) {
          // Checked before the chunk goes out, so a caller never gets more than the cap; like a cancel, the cut
          // speech is not counted as usage.
          seconds += next.value.seconds;
          if (seconds > maxAudioSeconds) {
            throw new AppError('audio_too_long', `the speech would be longer than ${maxAudioSeconds} s of audio (MAX_AUDIO_SECONDS); it was stopped there`);
          }
          yield next.value;
        }
        await usage.record(caller.userId, caller.keyId, text.length);
      } finally {
        signal.removeEventListener('abort', release);
        await iterator.return?.();
      }
    }
    return { voiceId: voice.id, engine: voice.engine, format, info: FORMATS[format], characters: text.length, chunks: chunks() };
  }

  /** The value checks every door shares; returns the speed to use. */
  private checkRequest(input: SpeechInput): number {
    const { text, format } = input;
    if (text.trim().length === 0) throw new AppError('validation', 'text must not be empty');
    if (text.length > this.deps.maxTextChars) {
      throw new AppError('text_too_long', `text is ${text.length} characters; the limit is ${this.deps.maxTextChars}`);
    }
    const speed = input.speed ?? SPEED_DEFAULT;
    if (!Number.isFinite(speed) || speed < SPEED_MIN || speed > SPEED_MAX) {
      throw new AppError('validation', `speed must be a number from ${SPEED_MIN} to ${SPEED_MAX}`);
    }
    if (!isEncodeFormat(format)) throw new AppError('validation', `format ${JSON.stringify(format)} is not supported`);
    return speed;
  }

  /** A voice the caller may use (built-in or their own), spoken by the requested engine if one was named. */
  private async resolveVoice(caller: SpeechCaller, input: SpeechInput): Promise<Voice> {
    const voiceId = input.voiceId ?? DEFAULT_VOICE_ID;
    if (voiceId.length === 0 || voiceId.length > MAX_VOICE_ID_CHARS) throw new AppError('validation', 'voice_id must be a non-empty string');
    const voice = await this.deps.voices.resolve(voiceId, caller.userId);
    if (!voice) throw new AppError('voice_not_found', `No voice "${voiceId.slice(0, 100)}"`);
    const { engine } = input;
    if (engine !== undefined) {
      const engines = this.engineIds();
      if (!engines.includes(engine)) throw new AppError('validation', `engine must be one of: ${engines.join(', ')}`);
      if (engine !== voice.engine) throw new AppError('validation', `voice "${voice.id}" is spoken by the ${voice.engine} engine, not ${engine}`);
    }
    return voice;
  }
}
