// A one-thread pool for the forge's decoding and measuring. One thread is enough: the fit loop waits for
// each measurement anyway, and the speech workers keep the other core.
import { Piscina } from 'piscina';
import { AppError } from '../errors.ts';
import { siblingModule } from '../sibling-module.ts';
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
  private readonly piscina: Piscina<AnalysisTask, AnalysisResult>;
  private uploadsInFlight = 0;

  constructor(options: { idleTimeoutMs?: number } = {}) {
    this.piscina = new Piscina<AnalysisTask, AnalysisResult>({
      filename: siblingModule(import.meta.url, 'forge-worker'),
      minThreads: 0,
      maxThreads: 1,
      // Started on the first clone and kept a while: loading the decoders' wasm takes a moment.
      idleTimeout: options.idleTimeoutMs ?? 60_000,
      atomics: 'disabled',
    });
  }

  /** Decodes and measures an upload; the bytes are copied, so the caller keeps them. */
  async analyzeUpload(bytes: Uint8Array, limits: UploadLimits): Promise<AnalysisResult> {
    if (this.uploadsInFlight >= MAX_WAITING_UPLOADS + 1) {
      throw new AppError('busy', 'Too many voice clones are being analysed; retry shortly', {
        'Retry-After': String(BUSY_RETRY_AFTER_SECONDS),
      });
    }
    this.uploadsInFlight += 1;
    try {
      return await this.piscina.run({ type: 'upload', bytes, minSeconds: limits.minSeconds, maxSeconds: limits.maxSeconds });
    } finally {
      this.uploadsInFlight -= 1;
    }
  }

  /** Measures rendered speech; the samples are moved to the worker (the caller's array is emptied). */
  async measurePcm(samples: Float32Array, rate: number): Promise<SpeakerFeatures | null> {
    const own = samples.byteOffset === 0 && samples.byteLength === samples.buffer.byteLength ? samples : samples.slice();
    const result = await this.piscina.run({ type: 'pcm', samples: own, rate }, { transferList: [own.buffer as ArrayBuffer] });
    return result.ok ? result.features : null;
  }

  close(): Promise<void> {
    return this.piscina.close();
  }
}
