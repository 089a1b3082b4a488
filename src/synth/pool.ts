// The worker pool: a fixed set of piscina threads, each holding its own loaded engines for its lifetime.
import { availableParallelism } from 'node:os';
import type { TransferListItem } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { siblingModule } from '../sibling-module.ts';
import { createCoreYield, loweredThreads, pausesSoFar, type CoreYieldShared } from './core-yield.ts';
import { ThreadBalancer, type Placement } from './thread-balancer.ts';
import { createWarmTurns } from './warm-turns.ts';
import { isWorkerEvent, type ResultOf, type WorkerResult, type WorkerSettings, type WorkerTask } from './protocol.ts';

/** The pool's own settings, and what it hands every thread (WorkerSettings). */
export interface PoolOptions extends WorkerSettings {
  /** Threads; default defaultWorkers(cores). */
  workers?: number;
  /**
   * Requests a thread interleaves (between sentences). More than one keeps a stalled slow client from
   * holding a whole thread. Default 4.
   */
  tasksPerWorker?: number;
  /** Threads that warm up at once (see warm-turns.ts); default one less than the cores, at least one. */
  warmAtOnce?: number;
  /** Cores the threads share; default os.availableParallelism(). More threads than cores keeps one for short requests (core-yield.ts). */
  cores?: number;
}

/** The default thread count: one per core, and one for short requests beside long readings (core-yield.ts). */
export function defaultWorkers(cores = availableParallelism()): number {
  return cores + 1;
}

/** A task as the balancer sees it: piscina's queue options under its symbol. */
type PiscinaTaskOptions = { [key: symbol]: Placement | null | undefined };

export interface PoolStats {
  queued: number;
  running: number;
  workers: number;
  /** Threads that have loaded and warmed up their engines (/readyz answers from the first; the rest warm in turn). */
  readyWorkers: number;
  /** Long readings running on each thread, busiest first (threads without any left out). */
  longReadings: number[];
  /** Times a long reading's thread has paused for a short request's first audio (core-yield.ts). */
  longPauses: number;
  /** Threads that run at the lower CPU priority of long work (core-yield.ts). */
  lowPriorityThreads: number;
}

export class SynthPool {
  private readonly piscina: Piscina<WorkerTask, WorkerResult>;
  private readonly size: number;
  private readonly readyThreads = new Set<number>();
  private failure: Error | undefined;
  /** The last error of a thread outside any task, for diagnostics. */
  lastWorkerError: Error | undefined;
  private waiters: { all: boolean; resolve: () => void; reject: (e: Error) => void }[] = [];
  private inFlight = 0;
  private closed = false;
  private readonly balancer: ThreadBalancer;
  private nextTaskId = 1;
  /** The counts by which long work steps aside for short requests (core-yield.ts); other long work may join. */
  readonly coreYield: CoreYieldShared;

  constructor(options: PoolOptions = {}) {
    const { workers, tasksPerWorker, warmAtOnce, cores: coresOption, ...settings } = options;
    const cores = Math.max(1, Math.floor(coresOption ?? availableParallelism()));
    this.size = Math.max(1, Math.floor(workers ?? defaultWorkers(cores)));
    const perThread = Math.max(1, Math.floor(tasksPerWorker ?? 4));
    this.coreYield = createCoreYield(this.size, cores);
    this.balancer = new ThreadBalancer(
      perThread,
      (task) => (task as PiscinaTaskOptions)[Piscina.queueOptionsSymbol] ?? undefined,
      (threadId) => this.readyThreads.has(threadId),
      this.coreYield.spareThread,
    );
    // One core is left to the main thread while the threads warm up (see warm-turns.ts).
    const warmTurns = createWarmTurns(this.size, warmAtOnce ?? cores - 1);
    this.piscina = new Piscina<WorkerTask, WorkerResult>({
      filename: siblingModule(import.meta.url, 'worker'),
      minThreads: this.size,
      maxThreads: this.size,
      idleTimeout: Number.MAX_SAFE_INTEGER,
      concurrentTasksPerWorker: perThread,
      loadBalancer: this.balancer.choose,
      // Tasks are long and asynchronous; Atomics.wait between them would block acks and cancels.
      atomics: 'disabled',
      workerData: { ...settings, warmTurns, coreYield: this.coreYield } satisfies WorkerSettings,
    });
    this.piscina.on('message', (msg: unknown) => {
      if (!isWorkerEvent(msg)) return;
      if (msg.type === 'engines-ready') this.readyThreads.add(msg.threadId);
      else this.failure = new Error(`speech engines failed to load: ${msg.message}`);
      this.settleWaiters();
    });
    // A thread that dies outside a task is replaced by piscina (and reports ready again); without a
    // listener the 'error' event would take the whole process down.
    this.piscina.on('error', (err: unknown) => {
      this.lastWorkerError = err instanceof Error ? err : new Error(String(err));
    });
  }

  /** Current threads that have reported ready; a thread piscina replaced after a crash must report anew. */
  private warmThreads(): number {
    return this.piscina.threads.filter((t) => this.readyThreads.has(t.threadId)).length;
  }

  /** Every current thread has reported. */
  private allReady(): boolean {
    const threads = this.piscina.threads.length;
    return threads >= this.size && this.warmThreads() === threads;
  }

  /** A current thread has reported (the balancer sends requests there first). */
  private anyReady(): boolean {
    return this.warmThreads() > 0;
  }

  private settleWaiters(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) {
      if (this.failure) w.reject(this.failure);
      else if (w.all ? this.allReady() : this.anyReady()) w.resolve();
      else this.waiters.push(w);
    }
  }

  /** Resolves once every thread has loaded and warmed up its engines. */
  ready(): Promise<void> {
    return this.waitFor(true);
  }

  /**
   * Resolves once a thread has loaded and warmed up its engines: the pool serves from it while the others
   * warm (they take turns, see warm-turns.ts), so no request waits for a warm-up.
   */
  serving(): Promise<void> {
    return this.waitFor(false);
  }

  private waitFor(all: boolean): Promise<void> {
    if (this.closed) return Promise.reject(new Error('synthesizer is closed'));
    if (this.failure) return Promise.reject(this.failure);
    if (all ? this.allReady() : this.anyReady()) return Promise.resolve();
    // Idle piscina threads are unref'd: without a handle of our own, a process that only awaits this
    // promise would exit before the workers report.
    const keepAlive = setInterval(() => {}, 60_000);
    return new Promise<void>((resolve, reject) => this.waiters.push({ all, resolve, reject })).finally(() => clearInterval(keepAlive));
  }

  /** Runs a task on a thread; long readings (see long-reading.ts) spread over the threads (thread-balancer.ts). */
  run<T extends WorkerTask>(task: T, transferList: TransferListItem[] = [], long = false): Promise<ResultOf<T>> {
    if (this.closed) return Promise.reject(new Error('synthesizer is closed'));
    this.inFlight++;
    const id = this.nextTaskId++;
    // Piscina hands the queue options to the balancer; a symbol key does not travel to the thread.
    // A speak task's thread reads the placement too (it steps aside for short requests when long).
    const sent: WorkerTask = task.type === 'speak' ? { ...task, long } : task;
    const placed = { ...sent, [Piscina.queueOptionsSymbol]: { long, id } satisfies Placement };
    const p = this.piscina.run(placed, { transferList }) as Promise<ResultOf<T>>;
    const ended = (): void => {
      this.inFlight--;
      this.balancer.release(id);
    };
    p.then(ended, ended);
    return p;
  }

  stats(): PoolStats {
    const queued = this.piscina.queueSize;
    return {
      queued,
      running: Math.max(0, this.inFlight - queued),
      workers: this.piscina.threads.length,
      readyWorkers: this.warmThreads(),
      longReadings: [...this.balancer.longReadings().values()].sort((a, b) => b - a),
      longPauses: pausesSoFar(this.coreYield),
      lowPriorityThreads: loweredThreads(this.coreYield),
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Whoever still waits for the engines (a /readyz probe during warm-up) must not hold the process open.
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.reject(new Error('synthesizer is closed'));
    await this.piscina.close();
  }
}
