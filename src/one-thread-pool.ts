// The pools that keep one kind of heavy work (decoding uploads, reading documents) off the event loop on a
// thread of its own: one thread, started on first use, and a short line in front of it.
import { Piscina } from 'piscina';
import { AppError } from './errors.ts';
import { siblingModule } from './sibling-module.ts';

export interface OneThreadPoolOptions {
  /** The worker module: its name, in the folder of `base` (an import.meta.url). */
  base: string;
  worker: string;
  /** How long the thread is kept once idle (starting it again costs what its module loads). */
  idleTimeoutMs: number;
  /** Tasks that may wait behind the running one. Each holds its input in memory, so past this one is refused. */
  maxWaiting: number;
  /** What a refused task is told: a 503 `busy` with this message and Retry-After. */
  busyMessage: string;
  retryAfterSeconds: number;
  /** Heap of the thread, in MiB (Node's default when absent). */
  maxHeapMb?: number;
}

type RunOptions = Parameters<Piscina['run']>[1];

export class OneThreadPool<Task, Result> {
  private readonly piscina: Piscina<Task, Result>;
  private inFlight = 0;

  constructor(private readonly options: OneThreadPoolOptions) {
    this.piscina = new Piscina<Task, Result>({
      filename: siblingModule(options.base, options.worker),
      minThreads: 0,
      maxThreads: 1,
      idleTimeout: options.idleTimeoutMs,
      atomics: 'disabled',
      ...(options.maxHeapMb !== undefined ? { resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb } } : {}),
    });
  }

  /** Runs a task on the thread, or refuses it with 503 `busy` when the line in front of it is full. */
  async runOrRefuse(task: Task, options?: RunOptions): Promise<Result> {
    const { maxWaiting, busyMessage, retryAfterSeconds } = this.options;
    if (this.inFlight >= maxWaiting + 1) throw new AppError('busy', busyMessage, { 'Retry-After': String(retryAfterSeconds) });
    this.inFlight += 1;
    try {
      return await this.piscina.run(task, options);
    } finally {
      this.inFlight -= 1;
    }
  }

  /** Runs a task on the thread whatever waits (work the service itself asks for, not a client's upload). */
  run(task: Task, options?: RunOptions): Promise<Result> {
    return this.piscina.run(task, options);
  }

  close(): Promise<void> {
    return this.piscina.close();
  }
}
