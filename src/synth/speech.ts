// The request and chunk shapes of the synthesis pipeline, shared by the main thread and the workers.
import type { EncodeFormat } from '../audio/encoders/index.ts';
import type { VoiceSpec } from './voice-spec.ts';

export type OutputFormat = EncodeFormat;

export interface SpeechRequest {
  text: string;
  voice: VoiceSpec;
  /** 0.25..4 (clamped); 1 is the voice's normal rate. */
  speed: number;
  format: OutputFormat;
  /**
   * Emit one complete file at the end with exact lengths in its header (wav, mulaw, flac, mp3 tag)
   * instead of streaming; for downloads whose client cannot read a streamed header. Default false.
   */
  buffered?: boolean;
}

/** A word and when it is heard, in seconds from the start of the stream. */
export interface WordTiming {
  word: string;
  start: number;
  end: number;
}

export interface SpeechChunk {
  bytes: Uint8Array;
  /** Words that start in the audio of this chunk or earlier and were not reported yet. */
  words?: WordTiming[];
}

export const MIN_SPEED = 0.25;
export const MAX_SPEED = 4;
