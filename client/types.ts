// Request and response shapes of the Voxsmith API: the server's own schemas (src/schemas), as static types,
// plus the few shapes that exist only on this side (decoded audio, a file to upload).
import type { CloneFields, Gender } from '../src/schemas/index.ts';

export type {
  ApiKey,
  BreedBody as BreedRequest,
  CreatedApiKey,
  ErrorBody,
  ErrorCode,
  Gender,
  NotReady,
  OwnedVoice,
  Readiness,
  UsageDay,
  UsageKey,
  UsageReport,
  User,
  Voice,
  VoiceSource,
} from '../src/schemas/index.ts';

export interface VoiceFilter {
  /** BCP 47 tag or prefix: `en` matches en-US and en-GB. */
  language?: string;
  gender?: Gender;
  /** espeak, flite, piper or kokoro. */
  engine?: string;
}

export type AudioFormat = 'mp3' | 'wav' | 'opus' | 'flac' | 'pcm' | 'mulaw';

export interface SpeakRequest {
  text: string;
  /** A voice id from the library, or "default". */
  voice_id?: string;
  /** 0.25 to 4; 1 is normal. */
  speed?: number;
  /** mp3 by default. */
  format?: AudioFormat;
}

export interface SpeechAudio {
  audio: Uint8Array;
  contentType: string;
  sampleRate: number;
  /** The voice that spoke (resolves "default"). */
  voiceId: string;
}

export interface StreamRequest {
  text: string;
  voice_id?: string;
  /** Checks that the voice is spoken by this engine. */
  engine?: string;
  speed?: number;
}

export interface WordTiming {
  word: string;
  /** Seconds from the start of this request's audio. */
  start: number;
  end: number;
}

export interface StreamResult {
  samples: number;
  seconds: number;
  cancelled: boolean;
}

/** The clone form's text fields, plus the sample as a Blob (a File in browsers). */
export type CloneRequest = CloneFields & {
  /** A speech sample: wav, mp3, ogg (opus, vorbis) or flac. */
  audio: Blob;
  filename?: string;
};

export type OpenAIVoiceName =
  | 'alloy'
  | 'ash'
  | 'ballad'
  | 'coral'
  | 'echo'
  | 'fable'
  | 'nova'
  | 'onyx'
  | 'sage'
  | 'shimmer'
  | 'verse'
  | 'marin'
  | 'cedar';

/** The body of OpenAI's speech API, as /v1/audio/speech takes it. */
export interface OpenAISpeechRequest {
  model: 'tts-1' | 'tts-1-hd' | 'gpt-4o-mini-tts' | 'espeak' | 'flite' | (string & {});
  input: string;
  voice: OpenAIVoiceName | (string & {}) | { id: string };
  response_format?: 'mp3' | 'opus' | 'flac' | 'wav' | 'pcm' | 'mulaw';
  speed?: number;
  instructions?: string;
}
