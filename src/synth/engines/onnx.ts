// onnxruntime-node sessions for the neural engines: one per model file per worker thread, created on first
// use and kept: a model costs a worker roughly its file size (Piper medium ~63 MB, Kokoro v1.0 ~310 MB; see
// README, Natural voices), and onnxruntime itself ~30 MB once per process.
import type * as OrtModule from 'onnxruntime-node';
import type { InferenceSession, Tensor } from 'onnxruntime-node';

type Ort = typeof OrtModule;

let ort: Promise<Ort> | undefined;
const sessions = new Map<string, Promise<InferenceSession>>();

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

/** The session of a model file. One intra-op thread: the pool already runs one worker per core. */
export function sessionFor(path: string): Promise<InferenceSession> {
  let s = sessions.get(path);
  if (!s) {
    s = onnxRuntime().then((o) =>
      // Fatal only: a failing run is reported by the request that made it, not printed again on stderr.
      o.InferenceSession.create(path, { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all', logSeverityLevel: 4 }),
    );
    // A failed load (file replaced while running) may succeed later: do not keep the rejection.
    s.catch(() => sessions.delete(path));
    sessions.set(path, s);
  }
  return s;
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
