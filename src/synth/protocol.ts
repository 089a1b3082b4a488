// Messages between the synthesizer (main thread) and a worker. A speak task carries its own
// MessagePort; chunks stream back on it and acks / cancel go the other way, so one request never
// waits for another and cancelling never kills the worker (piscina's abort would, reloading engines).
import type { MessagePort } from 'node:worker_threads';
import type { EspeakData } from './engines/espeak/module.ts';
import type { WarmTurnsShared } from './warm-turns.ts';
import type { CoreYieldShared } from './core-yield.ts';
import type { CompiledFlite } from './engines/flite/compiled.ts';
import type { NeuralModels } from './neural-models.ts';
import type { EngineId, VoiceSpec } from './voice-spec.ts';
import type { Phonemized, PhonemizeRequest } from './phonemize.ts';
import type { RenderResult } from './pipeline.ts';
import type { MarkTiming, SpeechRequest, WordTiming } from './speech.ts';

/** Main thread -> worker, on the task's port. */
export type ControlMessage =
  /** The consumer took chunks worth `seconds` of audio: the worker may produce that much more. */
  { type: 'ack'; id: number; seconds: number } | { type: 'cancel'; id: number };

/** Worker -> main thread, on the task's port; `done` or `error` is always the last message. */
export type StreamMessage =
  | { type: 'chunk'; id: number; bytes: Uint8Array; seconds: number; words?: WordTiming[]; marks?: MarkTiming[] }
  | { type: 'done'; id: number; seconds: number }
  | { type: 'error'; id: number; message: string; name: string };

export interface SpeakTask {
  type: 'speak';
  id: number;
  request: SpeechRequest;
  port: MessagePort;
  /** Audio (seconds) the worker may have in flight without acks before it pauses. */
  maxUnackedSeconds: number;
  /** Give up when the consumer acks nothing for this long while the worker waits (a vanished client). */
  stallTimeoutMs: number;
  /** Placed as a long reading (a long text, or a job's piece): it steps aside for short requests (core-yield.ts). */
  long?: boolean;
  /** The neural models the request's voices use, as the main thread knows them now (VOICES_DIR changes at run time). */
  neural?: NeuralModels;
}

/** POST /v1/phonemize: the normalized text and each word's phonemes (one answer, no port). */
export interface PhonemizeTask {
  type: 'phonemize';
  id: number;
  request: PhonemizeRequest;
  neural?: NeuralModels;
}

/** Main thread -> every worker, on the pool's broadcast channel: the models VOICES_DIR still holds. */
export interface NeuralRetain {
  type: 'retain';
  keys: string[];
}

export type WorkerTask = SpeakTask | PhonemizeTask;

/** What every worker thread is started with (piscina's workerData). */
export interface WorkerSettings {
  /** Piper and Kokoro models found in VOICES_DIR at start (see src/voices/neural-catalog.ts); none by default. */
  neural?: NeuralModels;
  /** The BroadcastChannel on which the main thread says which models are still installed (NeuralRetain). */
  neuralChannel?: string;
  /**
   * Integrated loudness every voice is brought to (each thread measures its voices against it); default
   * -18 LUFS; null: every engine at its own level (the limiter still keeps peaks under the ceiling).
   */
  loudnessTargetLufs?: number | null;
  /**
   * Voices spoken once through the whole pipeline before the thread reports ready: their loudness is
   * measured and the pipeline's code is optimised then, not during a request (the default voice). When
   * given, only their engines load before the thread reports ready, the others just after; without, all.
   */
  warmVoices?: VoiceSpec[];
  /**
   * Only what the warm voices need is warmed (before ready); the other engines and the late codecs load on
   * their first request instead of just after ready (WARM_UP=minimal).
   */
  minimalWarmUp?: boolean;
  /** The flite library, compiled once by the main thread and shared by every thread (see flite/library.ts). */
  flite?: CompiledFlite;
  /** espeak-ng's data, read once by the main thread and shared by every thread (see espeak/module.ts). */
  espeakData?: EspeakData;
  /** The threads' turns at warming up (see warm-turns.ts); without, a thread warms at once. */
  warmTurns?: WarmTurnsShared;
  /** Long readings stepping aside for short requests' first audio (see core-yield.ts); without, they never do. */
  coreYield?: CoreYieldShared;
}

/** A speak task's end: what the render loop reports of the request. */
export interface SpeakResult extends RenderResult {
  type: 'spoken';
  id: number;
}

export type PhonemizeResult =
  | { type: 'phonemized'; id: number; result: Phonemized }
  /**
   * The request was refused (the text says more than its limit once the lexicon is applied, the voice is
   * unknown): the error's name and message, which a thrown error would lose crossing threads.
   */
  | { type: 'refused'; id: number; name: string; message: string };

export type WorkerResult = SpeakResult | PhonemizeResult;
/** The answer to a task of type T. */
export type ResultOf<T extends WorkerTask> = T extends SpeakTask ? SpeakResult : PhonemizeResult;

/** Worker -> main thread on the worker's own parentPort (piscina re-emits it as the pool's 'message'). */
export type WorkerEvent =
  { type: 'engines-ready'; threadId: number; engines: EngineId[] } | { type: 'engines-failed'; threadId: number; message: string };

export function isWorkerEvent(value: unknown): value is WorkerEvent {
  if (typeof value !== 'object' || value === null) return false;
  const t = (value as { type?: unknown }).type;
  return t === 'engines-ready' || t === 'engines-failed';
}
