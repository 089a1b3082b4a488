// The queue a job's work goes through: render a piece, encode a chapter, assemble the book. Embedded in the
// process for one node; BullMQ on Redis for several, where every node's runner takes tasks of the same book.
// Both pass the same shared suite (test/jobs/task-queue.suite.ts).

export type JobTask =
  { kind: 'piece'; jobId: string; n: number } | { kind: 'chapter'; jobId: string; n: number } | { kind: 'book'; jobId: string };

/** A task's identity: adding a task whose id is waiting or running adds nothing. */
export function taskId(task: JobTask): string {
  return task.kind === 'book' ? `${task.jobId}.book` : `${task.jobId}.${task.kind}.${task.n}`;
}

/**
 * Does the task. Resolves when it is done (or nothing is left to do); throws to have it tried again later, up to
 * the queue's attempts. `signal` aborts when the queue closes.
 */
export type TaskHandler = (task: JobTask, signal: AbortSignal) => Promise<void>;

export interface TaskQueueOptions {
  /** Tasks this node runs at once. */
  concurrency: number;
  /** Tries of a task that throws before it is given up (onFailed). */
  attempts: number;
  /** Wait before the first retry; doubled for each further one. */
  backoffMs: number;
}

export interface TaskQueue {
  readonly kind: 'embedded' | 'bullmq';
  /** Queues tasks in order; one already waiting or running under the same id is not queued twice. */
  add(tasks: readonly JobTask[]): Promise<void>;
  /**
   * Starts running tasks with `handler`, at most `concurrency` at once on this node. `onFailed` hears a task
   * that failed its last attempt.
   */
  start(handler: TaskHandler, onFailed: (task: JobTask, error: Error) => void): void;
  /** Drops the tasks of a job that are still waiting (a running one is the runner's to abort). */
  drop(jobId: string, tasks: readonly JobTask[]): Promise<void>;
  /** Tasks waiting and running on this node (running) or anywhere (waiting), for metrics and tests. */
  counts(): Promise<{ waiting: number; running: number }>;
  /** Stops taking tasks and aborts the running ones (their tasks stay to be run again, here or elsewhere). */
  close(): Promise<void>;
}
