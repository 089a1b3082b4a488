// The single-node queue: tasks in memory, run in order of arrival. Nothing is lost by keeping them only here:
// the job runner queues every unfinished job's tasks again from the database when the process starts.
import { taskId, type JobTask, type TaskHandler, type TaskQueue, type TaskQueueOptions } from './task-queue.ts';

interface Entry {
  task: JobTask;
  id: string;
  attempt: number;
  /** Not before this time (a retry's backoff). */
  notBefore: number;
}

export class EmbeddedTaskQueue implements TaskQueue {
  readonly kind = 'embedded';
  private readonly waiting: Entry[] = [];
  private readonly known = new Set<string>();
  private readonly running = new Map<string, AbortController>();
  private handler: TaskHandler | null = null;
  private onFailed: (task: JobTask, error: Error) => void = () => undefined;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly settled = new Set<Promise<void>>();

  constructor(private readonly options: TaskQueueOptions) {}

  async add(tasks: readonly JobTask[]): Promise<void> {
    if (this.closed) return;
    for (const task of tasks) {
      const id = taskId(task);
      if (this.known.has(id)) continue;
      this.known.add(id);
      this.waiting.push({ task, id, attempt: 1, notBefore: 0 });
    }
    this.pump();
  }

  start(handler: TaskHandler, onFailed: (task: JobTask, error: Error) => void): void {
    this.handler = handler;
    this.onFailed = onFailed;
    this.pump();
  }

  async drop(jobId: string): Promise<void> {
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      const e = this.waiting[i];
      if (e.task.jobId !== jobId) continue;
      this.waiting.splice(i, 1);
      this.known.delete(e.id);
    }
  }

  async counts(): Promise<{ waiting: number; running: number }> {
    return { waiting: this.waiting.length, running: this.running.size };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const abort of this.running.values()) abort.abort(new Error('the job queue is closing'));
    await Promise.all([...this.settled]);
  }

  private pump(): void {
    if (!this.handler || this.closed) return;
    const now = Date.now();
    while (this.running.size < this.options.concurrency) {
      const i = this.waiting.findIndex((e) => e.notBefore <= now);
      if (i < 0) break;
      const [entry] = this.waiting.splice(i, 1);
      this.run(entry);
    }
    // A retry waiting out its backoff wakes the queue when it is due.
    const next = this.waiting.reduce((t, e) => Math.min(t, e.notBefore), Number.POSITIVE_INFINITY);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (Number.isFinite(next) && next > now && this.running.size < this.options.concurrency) {
      this.timer = setTimeout(() => this.pump(), next - now);
      this.timer.unref();
    }
  }

  private run(entry: Entry): void {
    const abort = new AbortController();
    this.running.set(entry.id, abort);
    const handler = this.handler as TaskHandler;
    const done = (async () => {
      try {
        await handler(entry.task, abort.signal);
        this.known.delete(entry.id);
      } catch (err) {
        const error = err instanceof Error ? err : new Error(String(err));
        if (this.closed) return;
        if (entry.attempt >= this.options.attempts) {
          this.known.delete(entry.id);
          this.onFailed(entry.task, error);
        } else {
          this.waiting.push({
            ...entry,
            attempt: entry.attempt + 1,
            notBefore: Date.now() + this.options.backoffMs * 2 ** (entry.attempt - 1),
          });
        }
      } finally {
        this.running.delete(entry.id);
      }
    })();
    this.settled.add(done);
    void done.finally(() => {
      this.settled.delete(done);
      this.pump();
    });
  }
}
