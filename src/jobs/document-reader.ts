// Reads documents into job plans on threads of their own, with a deadline and a memory cap: a document crafted
// to take minutes or gigabytes (an archive that lies about its sizes, markup built to be slow) costs one thread
// for at most the deadline, never the event loop, and is refused once it passes either bound. One account reads
// on all but one of the threads at most, so another account's job always finds a thread (issue 44, J3).
import { availableParallelism } from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { AppError } from '../errors.ts';
import { siblingModule } from '../sibling-module.ts';
import type { DocumentInput, JobPlan } from './document/plan.ts';
import type { DocumentResult, DocumentTask } from './document-worker.ts';

const BUSY_RETRY_AFTER_SECONDS = 5;

export interface DocumentReaderOptions {
  /** Longest a document may take to read once it has its thread. */
  timeoutMs?: number;
  /** Threads that read documents. */
  threads?: number;
  /** Heap of each reading thread, in MiB. */
  maxHeapMb?: number;
}

/** Threads for reading documents when not configured: half the cores, two at least (one for each of two accounts). */
export function defaultDocumentThreads(): number {
  return Math.max(2, Math.min(4, Math.floor(availableParallelism() / 2)));
}

/** One account's documents: how many are on a thread, and those waiting for the account's turn. */
interface AccountLine {
  reading: number;
  waiting: Array<() => void>;
}

export class DocumentReader {
  private readonly piscina: Piscina<DocumentTask, DocumentResult>;
  private readonly timeoutMs: number;
  /** Documents one account reads at once: every thread but one (one at least). */
  private readonly perAccount: number;
  /** Documents one account may have waiting for its turn; past this its next is refused with 503. */
  private readonly perAccountWaiting: number;
  private readonly lines = new Map<string, AccountLine>();

  constructor(options: DocumentReaderOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 60_000;
    const threads = options.threads ?? defaultDocumentThreads();
    this.perAccount = Math.max(1, threads - 1);
    this.perAccountWaiting = 4;
    this.piscina = new Piscina<DocumentTask, DocumentResult>({
      filename: siblingModule(import.meta.url, 'document-worker'),
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: 30_000,
      atomics: 'disabled',
      // Each waiting document is held in memory: past this many, the next (any account's) is refused with 503.
      maxQueue: 8 * threads,
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb ?? 1024 },
    });
  }

  /**
   * The plan of a document read for `account`; throws catalogue errors (4xx) for documents that cannot become a
   * job, and 503 `busy` when that account already has as many documents waiting as it may.
   */
  async read(input: DocumentInput, account: string): Promise<JobPlan> {
    const leave = await this.enter(account);
    // The bound runs from the moment the thread begins reading (a thread's start, or a wait behind another
    // account's document, is not the document's doing); aborting ends that thread, so the next gets a fresh one.
    const deadline = new AbortController();
    const { port1, port2 } = new MessageChannel();
    let timer: NodeJS.Timeout | undefined;
    port1.once('message', () => {
      timer = setTimeout(() => deadline.abort(), this.timeoutMs);
    });
    try {
      const task: DocumentTask = { ...input, started: port2 };
      const result = await this.piscina.run(task, { signal: deadline.signal, transferList: [port2] });
      if (!result.ok) throw new AppError(result.code, result.message);
      return result.plan;
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (err instanceof Error && err.message === 'Task queue is at limit')
        throw this.busy('Too many documents are being read; retry shortly');
      // Piscina ends the thread that was reading it: the next document gets a fresh one.
      if (deadline.signal.aborted)
        throw new AppError(
          'document_too_large',
          `The document took longer than ${this.timeoutMs / 1000} s to read (DOCUMENT_READ_SECONDS); it was refused`,
        );
      // The thread ran out of memory (ERR_WORKER_OUT_OF_MEMORY) or died reading it.
      if (err instanceof Error && /memory|terminated/i.test(`${err.message} ${(err as { code?: string }).code ?? ''}`)) {
        throw new AppError('document_too_large', 'The document needs more memory to read than allowed; it was refused');
      }
      throw err;
    } finally {
      clearTimeout(timer);
      port1.close();
      leave();
    }
  }

  /** Waits for the account's turn (or refuses); the function returned gives the turn back. */
  private async enter(account: string): Promise<() => void> {
    let line = this.lines.get(account);
    if (!line) {
      line = { reading: 0, waiting: [] };
      this.lines.set(account, line);
    }
    if (line.reading >= this.perAccount) {
      if (line.waiting.length >= this.perAccountWaiting) {
        throw this.busy('This account has too many documents being read; retry shortly');
      }
      // The turn is handed over by the document that leaves, which keeps `reading` counted for us.
      await new Promise<void>((resolve) => line.waiting.push(resolve));
    } else {
      line.reading += 1;
    }
    const held = line;
    return () => {
      const next = held.waiting.shift();
      if (next) return next();
      held.reading -= 1;
      if (held.reading === 0) this.lines.delete(account);
    };
  }

  private busy(message: string): AppError {
    return new AppError('busy', message, { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) });
  }

  close(): Promise<void> {
    return this.piscina.close();
  }
}
