// Request and response shapes of the Voxsmith API: the server's own schemas (src/schemas), as static types,
// plus the few shapes that exist only on this side (decoded audio, a file to upload).
import type { CloneFields, DoneMessage, Gender, JobCreateBody, JobSource, SynthesizeMessage } from '../src/schemas/index.ts';

export type {
  ApiKey,
  BreedBody as BreedRequest,
  CatalogEntry,
  InstalledVoice,
  InstallJob,
  CreatedApiKey,
  CreateKeyBody as CreateKeyRequest,
  ErrorBody,
  ErrorCode,
  Gender,
  ChapterIndex,
  Job,
  JobChapter,
  JobCreateBody as JobRequest,
  JobStatus,
  KeyScope,
  Lexicon,
  LexiconRule,
  LexiconSummary,
  PhonemizeBody as PhonemizeRequest,
  PhonemizeResponse,
  PhonemizedWord,
  NotReady,
  OpenAiSpeechBody as OpenAISpeechRequest,
  OpenAiVoiceName as OpenAIVoiceName,
  OwnedVoice,
  Readiness,
  SpeakBody as SpeakRequest,
  SpeechFormat as AudioFormat,
  UsageDay,
  UsageKey,
  UsageReport,
  User,
  Voice,
  VoiceSource,
  WordTiming,
  SpeechWithTimestamps,
  WyomingStatus,
  WyomingConnection,
  WyomingRequest,
} from '../src/schemas/index.ts';

export interface VoiceFilter {
  /** BCP 47 tag or prefix: `en` matches en-US and en-GB. */
  language?: string;
  gender?: Gender;
  /** espeak, flite, piper or kokoro. */
  engine?: string;
}

export interface SpeechAudio {
  audio: Uint8Array;
  contentType: string;
  sampleRate: number;
  /** The voice that spoke (resolves "default"). */
  voiceId: string;
}

/** A request on the stream: its `synthesize` message without the type and the id, which the client sets. */
export type StreamRequest = Omit<SynthesizeMessage, 'type' | 'id' | 'context_id' | 'continue'>;

/** The totals of one streamed request, from its `done` message. */
export type StreamResult = Pick<DoneMessage, 'samples' | 'seconds'> & { cancelled: boolean };

/** The clone form's text fields, plus the sample as a Blob (a File in browsers). */
export type CloneRequest = CloneFields & {
  /** A speech sample: wav, mp3, ogg (opus, vorbis) or flac. */
  audio: Blob;
  filename?: string;
};

/** A job from a file: the document as a Blob (a File in browsers) and the same fields as a JSON job. */
export type JobUploadRequest = Omit<JobCreateBody, 'text' | 'text_type'> & {
  file: Blob;
  /** Its name; the extension (.txt, .md, .html, .ssml, .epub) says what it is unless text_type does. */
  filename: string;
  text_type?: JobSource;
};
