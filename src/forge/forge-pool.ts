// A one-thread pool for the forge's decoding and measuring. One thread is enough: the fit loop waits for
// each measurement anyway, and the speech workers keep the other core.
import { OneThreadPool } from '../one-thread-pool.ts';
import type { AnalysisResult, AnalysisTask } from './forge-protocol.ts';
import type { SpeakerFeatures } from './speaker-features.ts';

export interface UploadLimits {
  minSeconds: number;
  maxSeconds: number;
}

/**
 * Uploads that may wait for the one analysis thread, beyond the one it is measuring. Each holds its whole upload
 * (up to the body limit) in memory, so past this a clone is turned away with 503 rather than queued.
 */
export const MAX_WAITING_UPLOADS = 4;
/** What a turned-away clone is told to wait: about one analysis. */
const BUSY_RETRY_AFTER_SECONDS = 10;

export class SpeechAnalyzer {
  private readonly pool: OneThreadPool<AnalysisTask, AnalysisResult>;

  constructor(options: { idleTimeoutMs?: number } = {}) {
    this.pool = new OneThreadPool({
      base: import.meta.url,
      worker: 'forge-worker',
      // Started on the first clone and kept a while: loading the decoders' wasm takes a moment.
      idleTimeoutMs: options.idleTimeoutMs ?? 60_000,
      maxWaiting: MAX_WAITING_UPLOADS,
      busyMessage: 'Too many voice clones are being analysed; retry shortly',
      retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS,
    });
  }

  /** Decodes and measures an upload; the bytes are copied, so the caller keeps them. */
  analyzeUpload(bytes: Uint8Array, limits: UploadLimits): Promise<AnalysisResult> {
    return this.pool.runOrRefuse({ type: 'upload', bytes, minSeconds: limits.minSeconds, maxSeconds: limits.maxSeconds });
  }

  /** Measures rendered speech; the samples are moved to the worker (the caller's array is emptied). */
  async measurePcm(samples: Float32Array, rate: number): Promise<SpeakerFeatures | null> {
    const own = samples.byteOffset === 0 && samples.byteLength === samples.buffer.byteLength ? samples : samples.slice();
    const result = await this.pool.run({ type: 'pcm', samples: own, rate }, { transferList: [own.buffer as ArrayBuffer] });
    return result.ok ? result.features : null;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
