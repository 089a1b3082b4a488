// The cluster queue: BullMQ on the Redis every node shares. Each node's worker takes tasks of every book, so
// all of them render pieces of the same book; a task whose node dies is stalled (its lock lapses) and BullMQ
// hands it to a live worker. Finished tasks are removed, so a task id can be queued again later (the runner
// skips work the database says is done).
import { Queue, Worker, type Job } from 'bullmq';
import { taskId, type JobTask, type TaskHandler, type TaskQueue, type TaskQueueOptions } from './task-queue.ts';

const QUEUE_NAME = 'voxsmith-jobs';

export interface BullTaskQueueOptions extends TaskQueueOptions {
  url: string;
  /** Key prefix of this deployment (REDIS_URL's `prefix`); BullMQ's keys go under it. */
  prefix: string;
  /**
   * How long a worker's claim on a task lasts without renewal: a node killed mid-task has its tasks taken over
   * this long after (plus up to `stalledIntervalMs`). The live worker renews it every half of it.
   */
  lockMs?: number;
  stalledIntervalMs?: number;
}

export class BullTaskQueue implements TaskQueue {
  readonly kind = 'bullmq';
  private readonly queue: Queue;
  private worker: Worker | null = null;
  private readonly running = new Map<string, AbortController>();
  private closed = false;

  constructor(private readonly options: BullTaskQueueOptions) {
    this.queue = new Queue(QUEUE_NAME, {
      connection: { url: options.url, maxRetriesPerRequest: null },
      prefix: this.prefix(),
      defaultJobOptions: {
        attempts: options.attempts,
        backoff: { type: 'exponential', delay: options.backoffMs },
        removeOnComplete: true,
        removeOnFail: true,
      },
    });
    // Errors reach the caller of each command; without a listener an outage would be an uncaught 'error'.
    this.queue.on('error', () => undefined);
  }

  private prefix(): string {
    return `${this.options.prefix}bull`;
  }

  async add(tasks: readonly JobTask[]): Promise<void> {
    if (tasks.length === 0 || this.closed) return;
    // A job id that is waiting, delayed or running is not added again (BullMQ's own rule).
    await this.queue.addBulk(tasks.map((task) => ({ name: task.kind, data: task, opts: { jobId: taskId(task) } })));
  }

  start(handler: TaskHandler, onFailed: (task: JobTask, error: Error) => void): void {
    if (this.closed || this.worker) return;
    const lockDuration = this.options.lockMs ?? 30_000;
    this.worker = new Worker(
      QUEUE_NAME,
      async (job: Job<JobTask>) => {
        const abort = new AbortController();
        const id = job.id ?? taskId(job.data);
        this.running.set(id, abort);
        try {
          await handler(job.data, abort.signal);
        } finally {
          this.running.delete(id);
        }
      },
      {
        connection: { url: this.options.url, maxRetriesPerRequest: null },
        prefix: this.prefix(),
        concurrency: this.options.concurrency,
        lockDuration,
        stalledInterval: this.options.stalledIntervalMs ?? Math.max(1_000, Math.floor(lockDuration / 2)),
        // A task stalls once per node that dies under it; it must not be failed for that.
        maxStalledCount: 100,
        autorun: true,
      },
    );
    this.worker.on('error', () => undefined);
    this.worker.on('failed', (job, error) => {
      if (!job || this.closed) return;
      if (job.attemptsMade >= (job.opts.attempts ?? 1)) onFailed(job.data, error);
    });
  }

  async drop(_jobId: string, tasks: readonly JobTask[]): Promise<void> {
    // Only waiting tasks can go; a running one is refused (it is locked) and ends when its handler sees the job gone.
    await Promise.all(tasks.map((t) => this.queue.remove(taskId(t)).catch(() => 0)));
  }

  async counts(): Promise<{ waiting: number; running: number }> {
    const c = await this.queue.getJobCounts('waiting', 'delayed', 'prioritized');
    return { waiting: (c.waiting ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0), running: this.running.size };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const abort of this.running.values()) abort.abort(new Error('the job queue is closing'));
    // Running tasks end at once (aborted): their results are not waited for, and their locks lapse for others.
    await this.worker?.close(true).catch(() => undefined);
    await this.queue.close().catch(() => undefined);
  }
}
