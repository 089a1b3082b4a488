// A job cancelled while one of its pieces renders: the piece's abort is the cancel, never a failure of the job.
// (A failure marked first ended the job's event stream with "failed" before the delete removed the job.)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AudioEncoder } from '../../src/jobs/audio-encoder.ts';
import { JobRunner } from '../../src/jobs/job-runner.ts';
import type { JobRow, JobStore, PieceRow } from '../../src/jobs/job-store.ts';
import { EmbeddedTaskQueue } from '../../src/jobs/queue/embedded.ts';
import type { RenderedPiece, SpeechService } from '../../src/speech/speech-service.ts';
import { MemorySharedState } from '../../src/store/shared-state/memory.ts';

const JOB = { id: 'job1', user_id: 'u1', key_id: '', status: 'running', voice_id: 'flite-slt', speed: 1, lexicons: null } as const;
const PIECE: PieceRow = { jobId: JOB.id, n: 0, chapter: 0, text: 'Hello.', ssml: false, characters: 6, pauseBefore: null, stored: false };

/** How the render gives up once aborted: with the abort's reason, or with an engine's own error. */
const abortStyles: Record<string, (signal: AbortSignal) => unknown> = {
  "the signal's reason": (signal) => signal.reason,
  "an engine's own error": () => new Error('synthesis aborted'),
};

describe('JobRunner: cancelling a job while a piece renders', () => {
  for (const [style, rejection] of Object.entries(abortStyles)) {
    test(`the render ending with ${style} does not mark the job failed`, async () => {
      const failed: string[] = [];
      // The job row stays active until the delete, which comes after the cancel (as JobService.delete does it).
      const store = {
        job: async () => JOB as unknown as JobRow,
        piece: async () => PIECE,
        chapter: async () => undefined,
        storedPiece: async () => null,
        markRunning: async () => false,
        fail: async (_id: string, error: string) => {
          failed.push(error);
          return true;
        },
        unfinished: async () => [],
        expired: async () => [],
      } as unknown as JobStore;
      let rendering: () => void = () => undefined;
      const started = new Promise<void>((resolve) => (rendering = resolve));
      const speech = {
        pieceKey: async () => 'content-key',
        renderPiece: (_caller: unknown, _input: unknown, signal: AbortSignal) =>
          new Promise<RenderedPiece>((_resolve, reject) => {
            rendering();
            signal.addEventListener('abort', () => reject(rejection(signal)), { once: true });
          }),
      } as unknown as SpeechService;
      // One attempt: a failure reaches the job at once instead of after retries.
      const queue = new EmbeddedTaskQueue({ concurrency: 1, attempts: 1, backoffMs: 10 });
      const runner = new JobRunner({
        store,
        queue,
        speech,
        encoder: {} as AudioEncoder,
        sharedState: new MemorySharedState(),
        metrics: { observeJobPiece: () => undefined },
        log: { info: () => undefined, warn: () => undefined, error: () => undefined },
        retentionDays: 1,
        window: 1,
        sweepMs: 3_600_000,
      });
      await runner.start();
      try {
        await queue.add([{ kind: 'piece', jobId: JOB.id, n: 0 }]);
        await started;
        await runner.cancel({ ...(JOB as unknown as JobRow), pieces_done: 0, pieces_queued: 1, chapters: 1 });
        const deadline = Date.now() + 5_000;
        while ((await queue.counts()).running > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        assert.equal((await queue.counts()).running, 0, 'the piece stopped');
        await new Promise((r) => setTimeout(r, 50));
        assert.deepEqual(failed, [], 'the job was not marked failed');
      } finally {
        await runner.close();
      }
    });
  }
});
