// Reads documents into job plans on a thread of its own, one at a time, with a deadline and a memory cap: a
// document crafted to take minutes or gigabytes (deeply nested markup, an archive that lies about its sizes)
// costs that thread, never the event loop, and is refused once it passes either bound.
import { Piscina } from 'piscina';
import { AppError } from '../errors.ts';
import { siblingModule } from '../sibling-module.ts';
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
  private readonly piscina: Piscina<DocumentInput, DocumentResult>;
  private inFlight = 0;
  private readonly timeoutMs: number;

  constructor(options: DocumentReaderOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.piscina = new Piscina<DocumentInput, DocumentResult>({
      filename: siblingModule(import.meta.url, 'document-worker'),
      minThreads: 0,
      maxThreads: 1,
      idleTimeout: 30_000,
      atomics: 'disabled',
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb ?? 1024 },
    });
  }

  /** The plan of a document; throws catalogue errors (4xx) for documents that cannot become a job. */
  async read(input: DocumentInput): Promise<JobPlan> {
    if (this.inFlight >= MAX_WAITING + 1) {
      throw new AppError('busy', 'Too many documents are being read; retry shortly', { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) });
    }
    this.inFlight++;
    const deadline = AbortSignal.timeout(this.timeoutMs);
    try {
      const result = await this.piscina.run(input, { signal: deadline });
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
    } finally {
      this.inFlight--;
    }
  }

  close(): Promise<void> {
    return this.piscina.close();
  }
}
