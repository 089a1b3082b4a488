// The request and chunk shapes of the synthesis pipeline, shared by the main thread and the workers.
import type { EncodeFormat } from '../audio/encoders/index.ts';
import type { VoiceSpec } from './voice-spec.ts';
import type { WordTiming } from '../schemas/speech.ts';

export type OutputFormat = EncodeFormat;

export interface SpeechRequest {
  text: string;
  voice: VoiceSpec;
  /** SPEED_MIN..SPEED_MAX (clamped); 1 is the voice's normal rate. */
  speed: number;
  format: OutputFormat;
  /**
   * Emit one complete file at the end with exact lengths in its header (wav, mulaw, flac, mp3 tag)
   * instead of streaming; for downloads whose client cannot read a streamed header. Default false.
   */
  buffered?: boolean;
}

export type { WordTiming } from '../schemas/speech.ts';

export interface SpeechChunk {
  bytes: Uint8Array;
  /** Seconds of audio in this chunk (the encoded bytes alone do not say, e.g. for MP3 or Opus). */
  seconds: number;
  /** Words that start in the audio of this chunk or earlier and were not reported yet. */
  words?: WordTiming[];
}

/** The speed bounds the pipeline clamps to: the API's, from the one place they are written. */
export { SPEED_MAX, SPEED_MIN } from '../schemas/speech.ts';
