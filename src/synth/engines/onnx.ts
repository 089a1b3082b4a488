// onnxruntime-node sessions for the neural engines: one per model file per worker thread, created on first
// use and kept: a model costs a worker roughly its file size (Piper medium ~63 MB, Kokoro v1.0 ~310 MB; see
// README, Natural voices), and onnxruntime itself ~30 MB once per process.
import type * as OrtModule from 'onnxruntime-node';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { fileKey } from '../neural-models.ts';

type Ort = typeof OrtModule;

let ort: Promise<Ort> | undefined;
// On the thread's global object, like neural-models.ts's state: the worker imports this module statically (to let
// go of removed models) and the engines import it dynamically, which on Node 20 can give two instances.
const SLOT = Symbol.for('voxsmith.onnx-sessions');
interface Sessions {
  byFile: Map<string, Promise<InferenceSession>>;
  /** Runs in progress per session, so a retired one is released only once idle. */
  running: WeakMap<InferenceSession, number>;
  retired: WeakSet<InferenceSession>;
}
const held: Sessions = ((globalThis as { [SLOT]?: Sessions })[SLOT] ??= {
  byFile: new Map(),
  running: new WeakMap(),
  retired: new WeakSet(),
});
const sessions = held.byFile;
const { running, retired } = held;

/** The runtime, imported on first use so a worker without neural voices never loads its native library. */
export function onnxRuntime(): Promise<Ort> {
  if (!ort) {
    const loading = import('onnxruntime-node');
    // Not cached when it fails, so each request reports the reason rather than a stale rejection.
    loading.catch(() => (ort = undefined));
    ort = loading;
  }
  return ort;
}

/**
 * The session of a model file at a revision (a file replaced under the same name gets a session of its own). One
 * intra-op thread: the pool already runs one worker per core.
 */
export function sessionFor(path: string, revision: string): Promise<InferenceSession> {
  const key = fileKey(path, revision);
  let s = sessions.get(key);
  if (!s) {
    s = onnxRuntime().then((o) =>
      // Fatal only: a failing run is reported by the request that made it, not printed again on stderr.
      o.InferenceSession.create(path, { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all', logSeverityLevel: 4 }),
    );
    // A failed load (file replaced while running) may succeed later: do not keep the rejection.
    s.catch(() => sessions.delete(key));
    sessions.set(key, s);
  }
  return s;
}

/**
 * Releases the sessions of files not in `keep` (models removed from VOICES_DIR or replaced): a Kokoro model holds
 * ~300 MB of a worker. A session still running a request is released when that run ends.
 */
export function dropSessionsExcept(keep: ReadonlySet<string>): void {
  for (const [key, s] of sessions) {
    if (keep.has(key)) continue;
    sessions.delete(key);
    s.then((session) => retire(session)).catch(() => undefined);
  }
}

function retire(session: InferenceSession): void {
  retired.add(session);
  if (!running.get(session)) void session.release().catch(() => undefined);
}

/** Runs a session, keeping it from being released while it runs. */
export async function runSession(session: InferenceSession, feeds: InferenceSession.FeedsType): Promise<InferenceSession.OnnxValueMapType> {
  running.set(session, (running.get(session) ?? 0) + 1);
  try {
    return await session.run(feeds);
  } finally {
    const left = (running.get(session) ?? 1) - 1;
    running.set(session, left);
    if (left === 0 && retired.has(session)) void session.release().catch(() => undefined);
  }
}

/** The first output as mono float samples (Piper names it `output`, Kokoro exports differ). */
export function firstOutput(session: InferenceSession, results: InferenceSession.OnnxValueMapType): Float32Array {
  const name = session.outputNames[0];
  const value = results[name] as Tensor | undefined;
  if (!value || !(value.data instanceof Float32Array)) throw new Error(`model output ${name} is not float32 audio`);
  return value.data;
}

/** Model audio can exceed [-1, 1] slightly; the encoders expect it within. */
export function clip(samples: Float32Array): Float32Array {
  for (let i = 0; i < samples.length; i++) {
    const x = samples[i];
    if (!(x >= -1)) samples[i] = x > 1 ? 1 : -1;
    else if (x > 1) samples[i] = 1;
  }
  return samples;
}

/**
 * Audio a model may make per input symbol (phoneme id or token) at its normal pace: about ten times what real
 * Piper and Kokoro voices make (~0.05 s), so only a broken model or config reaches it.
 */
export const MAX_SECONDS_PER_SYMBOL = 0.5;

/** A model made far more audio than its input can speak: refused (audio_too_long), never passed on. */
export class RenderTooLongError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RenderTooLongError';
  }
}

/**
 * Throws RenderTooLongError when `samples` exceed what `symbols` input symbols may speak at `stretch` times the
 * normal duration (a slower rate, a voice's length_scale): one model run's output is bounded by its text.
 */
export function checkRenderLength(voice: string, samples: number, sampleRate: number, symbols: number, stretch: number): void {
  const maxSeconds = 1 + symbols * MAX_SECONDS_PER_SYMBOL * stretch;
  if (samples <= maxSeconds * sampleRate) return;
  throw new RenderTooLongError(
    `${voice}: the model made ${(samples / sampleRate).toFixed(1)} s of audio for ${symbols} phonemes, more than the ${maxSeconds.toFixed(1)} s ` +
      'they can take; its model or config is broken',
  );
}
