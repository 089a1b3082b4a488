// The request and chunk shapes of the synthesis pipeline, shared by the main thread and the workers.
import type { EncodeFormat } from '../audio/encoders/index.ts';
import type { VoiceSpec } from './voice-spec.ts';
import type { MarkTiming, WordTiming } from '../schemas/speech.ts';
import type { Script } from './text/script.ts';
import type { LexiconEntry } from './text/lexicon.ts';
import type { Break } from './text/split.ts';

export type OutputFormat = EncodeFormat;

export interface SpeechRequest {
  text: string;
  voice: VoiceSpec;
  /** SPEED_MIN..SPEED_MAX (clamped); 1 is the voice's normal rate. */
  speed: number;
  format: OutputFormat;
  /**
   * A download: emit one complete file at the end with exact lengths in its header (wav, mulaw, flac, mp3 tag)
   * when the answer is short enough that holding it back costs its first byte nothing (pipeline.ts,
   * WHOLE_FILE_MAX_CHARS); a longer one streams with the open-ended header. Default false.
   */
  buffered?: boolean;
  /**
   * The parsed request (SSML or plain text with breaks), parsed once by SpeechService; when absent the worker
   * reads `text` as plain text. Offsets in it point into `text`.
   */
  script?: Script;
  /** Voices a script's `<voice name>` switches to, resolved (and owner-checked) by SpeechService. */
  voices?: { name: string; spec: VoiceSpec }[];
  /** Pronunciation rules (the caller's lexicons, resolved), applied before normalization; earlier rules win. */
  lexicon?: LexiconEntry[];
  /**
   * With a lexicon: the most characters the request may speak once its aliases are applied (MAX_TEXT_CHARS). Past
   * it the request fails before any audio, with a TextTooLongError.
   */
  maxChars?: number;
  /**
   * The pause to put before the speech, as if a sentence ending so came before it: text streamed in pieces is
   * spoken one sentence per request, and still breathes between sentences. Default none.
   */
  pauseBefore?: Break;
  /** Output rate in Hz when a client chose one other than the format's own (pcm, wav, mp3); absent = the format's rate. */
  sampleRate?: number;
  /** Encoder bitrate in kbit/s when a client chose one (mp3, opus); absent = the codec's own. */
  bitrate?: number;
  /** mulaw/alaw as bare G.711 bytes, without the WAV header. */
  headerless?: boolean;
}

export type { MarkTiming, WordTiming } from '../schemas/speech.ts';

export interface SpeechChunk {
  bytes: Uint8Array;
  /** Seconds of audio in this chunk (the encoded bytes alone do not say, e.g. for MP3 or Opus). */
  seconds: number;
  /** Words that start in the audio of this chunk or earlier and were not reported yet. */
  words?: WordTiming[];
  /** SSML marks reached in the audio of this chunk or earlier and not reported yet. */
  marks?: MarkTiming[];
}

/** The speed bounds the pipeline clamps to: the API's, from the one place they are written. */
export { SPEED_MAX, SPEED_MIN } from '../schemas/speech.ts';
