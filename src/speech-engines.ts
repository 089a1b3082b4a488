// The speech side of start-up: the operator's neural voices scanned and the synthesis workers started. Their
// warm-up (engines loaded, the default voice rendered once) is the longest part of start-up, so main.ts starts
// them, without waiting, before it loads the HTTP side's modules, and the two proceed side by side.
import type { Config } from './config.ts';
import { readEspeakDataAsync } from './synth/engines/espeak/module.ts';
import { compileFliteAsync } from './synth/engines/flite/compiled.ts';
import { defaultWorkers } from './synth/pool.ts';
import { createSynthesizer, type Synthesizer } from './synth/synthesizer.ts';
import { DEFAULT_VOICE_ID, resolveBuiltin } from './voices/builtin.ts';
import { scanVoicesDir, type NeuralCatalog } from './voices/neural-catalog.ts';

export interface SpeechEngines {
  synthesizer: Synthesizer;
  /** Its worker threads. */
  workers: number;
  /** What VOICES_DIR held: the voices for the catalog, and the problems to log. */
  neural: NeuralCatalog;
}

export async function startSpeechEngines(config: Readonly<Config>): Promise<SpeechEngines> {
  // Read and compiled off the thread's way: main.ts loads the HTTP side meanwhile.
  const [neural, flite, espeakData] = await Promise.all([scanVoicesDir(config.voicesDir), compileFliteAsync(), readEspeakDataAsync()]);
  const workers = Math.max(1, config.workers ?? defaultWorkers());
  const synthesizer = createSynthesizer({
    workers,
    tasksPerWorker: config.slotsPerWorker,
    neural: neural.models,
    loudnessTargetLufs: config.loudnessTargetLufs,
    flite,
    espeakData,
    // Most requests use it: its first use (a loudness measurement, the pipeline's first runs) happens at start.
    warmVoices: [resolveBuiltin(DEFAULT_VOICE_ID)!.spec],
    minimalWarmUp: config.warmUp === 'minimal',
  });
  return { synthesizer, workers, neural };
}
