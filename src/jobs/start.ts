// Builds the long-form job machinery for the composition root: the queue (BullMQ with REDIS_URL, embedded
// otherwise), the document reader and audio encoder threads, the runner and the service, and ties their start
// to the app's and their stop to its shutdown.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { SpeechService } from '../speech/speech-service.ts';
import type { Store } from '../store/database.ts';
import type { SharedState } from '../store/shared-state/shared-state.ts';
import type { Shutdown } from '../shutdown.ts';
import { AudioEncoder } from './audio-encoder.ts';
import type { CoreYieldShared } from '../synth/core-yield.ts';
import { DocumentReader } from './document-reader.ts';
import { JobRunner } from './job-runner.ts';
import { JobService } from './job-service.ts';
import { JobStore } from './job-store.ts';
import { EmbeddedTaskQueue } from './queue/embedded.ts';
import type { TaskQueue, TaskQueueOptions } from './queue/task-queue.ts';

/** Tries of a task before its job fails (a worker crash, a database hiccup). */
const ATTEMPTS = 5;
const BACKOFF_MS = 2_000;

export interface JobsSetup {
  config: Readonly<Config>;
  app: FastifyInstance;
  store: Store;
  speech: SpeechService;
  sharedState: SharedState;
  metrics: Metrics;
  shutdown: Shutdown;
  /** Synthesis threads of this node. */
  workers: number;
  /** The synthesis pool's counts by which long work steps aside for short requests (the encoder joins them). */
  coreYield?: CoreYieldShared;
  redisPrefix?: string;
}

/**
 * Pieces a node renders at once: two per thread that jobs may use (every thread but the one kept for interactive
 * requests), so a thread always has the next piece while the last one is being stored.
 */
export function jobConcurrency(config: Readonly<Config>, workers: number): number {
  return config.jobs.concurrency ?? 2 * Math.max(1, workers - 1);
}

async function openQueue(config: Readonly<Config>, options: TaskQueueOptions, redisPrefix: string | undefined): Promise<TaskQueue> {
  if (!config.redisUrl) return new EmbeddedTaskQueue(options);
  const [{ parseRedisUrl }, { BullTaskQueue }] = await Promise.all([
    import('../store/shared-state/redis-link.ts'),
    import('./queue/bullmq.ts'),
  ]);
  const target = parseRedisUrl(config.redisUrl, redisPrefix);
  return new BullTaskQueue({ ...options, url: target.url, prefix: target.prefix, lockMs: config.jobs.lockMs });
}

export async function startJobs(setup: JobsSetup): Promise<JobService> {
  const { config, app, store, speech, sharedState, metrics, shutdown } = setup;
  const concurrency = jobConcurrency(config, setup.workers);
  const window = Math.max(16, 4 * concurrency);
  const queue = await openQueue(config, { concurrency, attempts: ATTEMPTS, backoffMs: BACKOFF_MS }, setup.redisPrefix);
  const jobStore = new JobStore(store.db, store.dialect);
  const encoder = new AudioEncoder(1, setup.coreYield);
  const reader = new DocumentReader({ timeoutMs: config.jobs.documentReadMs, threads: config.jobs.documentThreads ?? undefined });
  shutdown.add('workers', 'job threads', () => Promise.all([encoder.close(), reader.close()]));
  const runner = new JobRunner({
    store: jobStore,
    queue,
    speech,
    encoder,
    sharedState,
    metrics,
    log: app.log,
    retentionDays: config.jobs.retentionDays,
    window,
  });
  app.addHook('onReady', async () => {
    // PostgreSQL may come up after the node: the runner starts once the database answers.
    void store
      .whenReady()
      .then(() => runner.start())
      .catch((err: unknown) => app.log.error({ err }, 'the job runner could not start'));
  });
  shutdown.add('work', 'job runner', () => runner.close());
  return new JobService({
    store: jobStore,
    runner,
    reader,
    speech,
    sharedState,
    limits: {
      maxChars: config.jobs.maxChars,
      maxPerUser: config.jobs.maxPerUser,
      maxUploadBytes: config.jobs.maxUploadBytes,
      maxTextChars: config.maxTextChars,
      window,
      maxChapters: config.jobs.maxChapters,
      maxPieces: config.jobs.maxPieces,
      maxAudioSeconds: config.jobs.maxAudioSeconds,
      maxStorageBytesPerUser: config.jobs.maxStorageBytesPerUser,
    },
  });
}
