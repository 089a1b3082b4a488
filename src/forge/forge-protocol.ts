// Messages between the forge and its analysis worker.
import type { AudioDecodeErrorKind, UploadContainer } from '../audio/decode.ts';
import type { SpeakerFeatures } from './speaker-features.ts';

export type AnalysisTask =
  { type: 'upload'; bytes: Uint8Array; minSeconds: number; maxSeconds: number } | { type: 'pcm'; samples: Float32Array; rate: number };

export type AnalysisFailureKind = AudioDecodeErrorKind | 'too_short' | 'no_speech';

export type AnalysisResult =
  | { ok: true; features: SpeakerFeatures; container?: UploadContainer; seconds?: number }
  | { ok: false; kind: AnalysisFailureKind; message: string };
