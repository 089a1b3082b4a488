// Reads documents into job plans on a thread of its own, one at a time, with a deadline and a memory cap: a
// document crafted to take minutes or gigabytes (deeply nested markup, an archive that lies about its sizes)
// costs that thread, never the event loop, and is refused once it passes either bound.
import { AppError } from '../errors.ts';
import { OneThreadPool } from '../one-thread-pool.ts';
import type { DocumentInput, JobPlan } from './document/plan.ts';
import type { DocumentResult } from './document-worker.ts';

/** Documents that may wait for the thread beyond the one it reads; more are refused with 503. */
const MAX_WAITING = 4;
const BUSY_RETRY_AFTER_SECONDS = 5;

export interface DocumentReaderOptions {
  /** Longest a document may take to read. */
  timeoutMs?: number;
  /** Heap of the reading thread, in MiB. */
  maxHeapMb?: number;
}

export class DocumentReader {
  private readonly pool: OneThreadPool<DocumentInput, DocumentResult>;
  private readonly timeoutMs: number;

  constructor(options: DocumentReaderOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.pool = new OneThreadPool({
      base: import.meta.url,
      worker: 'document-worker',
      idleTimeoutMs: 30_000,
      maxWaiting: MAX_WAITING,
      busyMessage: 'Too many documents are being read; retry shortly',
      retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS,
      maxHeapMb: options.maxHeapMb ?? 1024,
    });
  }

  /** The plan of a document; throws catalogue errors (4xx) for documents that cannot become a job. */
  async read(input: DocumentInput): Promise<JobPlan> {
    const deadline = AbortSignal.timeout(this.timeoutMs);
    try {
      const result = await this.pool.runOrRefuse(input, { signal: deadline });
      if (!result.ok) throw new AppError(result.code, result.message);
      return result.plan;
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (deadline.aborted)
        throw new AppError('invalid_document', `The document took longer than ${this.timeoutMs / 1000} s to read; it was refused`);
      // The thread ran out of memory (ERR_WORKER_OUT_OF_MEMORY) or died reading it.
      if (err instanceof Error && /memory|terminated/i.test(`${err.message} ${(err as { code?: string }).code ?? ''}`)) {
        throw new AppError('document_too_large', 'The document needs more memory to read than allowed; it was refused');
      }
      throw err;
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
