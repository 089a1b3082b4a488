// What the job encoder's main side and its thread say to each other (encode-worker.ts, audio-encoder.ts).
import type { MessagePort } from 'node:worker_threads';
import type { SpeechFormat } from '../schemas/speech.ts';
import type { CoreYieldShared } from '../synth/core-yield.ts';

/** What every encoder thread is handed. */
export interface EncodeWorkerData {
  /** The synthesis pool's counts: an encoding is long work that steps aside for short requests (core-yield.ts). */
  coreYield: CoreYieldShared | undefined;
}

/** One encoding: 16-bit PCM at 24 kHz in (through `port`), the format's bytes out. */
export interface EncodeTask {
  format: SpeechFormat;
  port: MessagePort;
}

/** Main to thread: more PCM (silence is sent as a count of samples), or the end of the stream. */
export type EncodeInput = { type: 'pcm'; pcm: Uint8Array } | { type: 'silence'; samples: number } | { type: 'end' };

/** Thread to main: the bytes each input produced (possibly none), in order. */
export interface EncodeOutput {
  type: 'bytes';
  bytes: Uint8Array;
}

/** What the whole file needs once every byte has been produced: a header that could not be written first. */
export interface EncodeResult {
  /** Bytes that go before everything produced (an MP3 Info frame, a WAV header with its sizes). */
  prefix: Uint8Array;
  /** Bytes that replace the start of what was produced (FLAC's STREAMINFO with its counts). */
  patch: Uint8Array;
  /** Samples of input (24 kHz). */
  samples: number;
  /** MP3 frames after the prefix. */
  mp3Frames: number | null;
  /** Bytes at the end that are not audio (an odd WAV data chunk's pad byte). */
  trailer: Uint8Array;
}
