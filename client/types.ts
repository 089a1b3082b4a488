// Request and response shapes of the Voxsmith API, as the server sends them (see /openapi.json).

export interface User {
  id: string;
  email: string;
  plan: string;
}

export interface CreatedApiKey {
  /** The full key: shown only in this answer. */
  key: string;
  id: string;
  name: string;
  created_at: string;
}

export interface ApiKey {
  id: string;
  name: string;
  masked_key: string;
  created_at: string;
  last_used: string | null;
}

export type Gender = 'female' | 'male' | 'neutral';
export type VoiceSource = 'builtin' | 'clone' | 'breed';

export interface Voice {
  id: string;
  name: string;
  /** BCP 47, e.g. en-GB. */
  language: string;
  language_name: string;
  gender: Gender;
  engine: string;
  source: VoiceSource;
  description: string;
  tags: string[];
  /** The parent ids of a bred voice. */
  parents?: string[];
  created_at?: string;
}

export interface VoiceFilter {
  /** BCP 47 tag or prefix: `en` matches en-US and en-GB. */
  language?: string;
  gender?: Gender;
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

export interface CloneRequest {
  /** A speech sample: wav, mp3, ogg (opus, vorbis) or flac. */
  audio: Blob;
  filename?: string;
  name: string;
  language?: string;
}

export interface BreedRequest {
  parent_a: string;
  parent_b: string;
  name: string;
  mutation_rate?: number;
  seed?: number;
}

export interface UsageReport {
  plan: string;
  since: string;
  days: Array<{ day: string; characters: number; requests: number }>;
  keys: Array<{ key_id: string | null; name: string; characters: number; requests: number }>;
}

export interface Readiness {
  status: string;
  checks: Record<string, string>;
}

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
