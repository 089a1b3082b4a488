import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { JobTask, TaskQueue, TaskQueueOptions } from '../../src/jobs/queue/task-queue.ts';

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const pieces = (jobId: string, n: number): JobTask[] => Array.from({ length: n }, (_, i) => ({ kind: 'piece', jobId, n: i }));

/** One suite every TaskQueue implementation must pass (embedded, BullMQ). */
export function taskQueueSuite(name: string, make: (options: TaskQueueOptions) => Promise<TaskQueue>): void {
  describe(`TaskQueue conformance: ${name}`, () => {
    test('runs every task once, in order of arrival, at most `concurrency` at once', async () => {
      const q = await make({ concurrency: 3, attempts: 1, backoffMs: 10 });
      try {
        const jobId = randomUUID();
        const seen: number[] = [];
        let running = 0;
        let most = 0;
        q.start(
          async (task) => {
            running++;
            most = Math.max(most, running);
            await new Promise((r) => setTimeout(r, 20));
            if (task.kind === 'piece') seen.push(task.n);
            running--;
          },
          () => assert.fail('no task fails'),
        );
        await q.add(pieces(jobId, 12));
        await until(() => seen.length === 12, 'every task');
        assert.deepEqual(
          [...seen].sort((a, b) => a - b),
          Array.from({ length: 12 }, (_, i) => i),
        );
        assert.ok(most <= 3 && most >= 2, `at most 3 at once (${most})`);
        assert.ok(seen.indexOf(0) < seen.indexOf(11), 'earlier tasks start first');
      } finally {
        await q.close();
      }
    });

    test('a task already waiting or running is not queued twice', async () => {
      const q = await make({ concurrency: 1, attempts: 1, backoffMs: 10 });
      try {
        const jobId = randomUUID();
        let runs = 0;
        let release: () => void = () => undefined;
        const gate = new Promise<void>((r) => (release = r));
        q.start(
          async (task) => {
            runs++;
            if (task.kind === 'piece' && task.n === 0) await gate;
          },
          () => undefined,
        );
        await q.add(pieces(jobId, 2));
        await until(() => runs === 1, 'the first task to start');
        await q.add(pieces(jobId, 2)); // 0 runs, 1 waits: both already there
        release();
        await until(async () => (await q.counts()).waiting === 0 && runs >= 2, 'the queue to drain');
        await new Promise((r) => setTimeout(r, 200));
        assert.equal(runs, 2);
      } finally {
        await q.close();
      }
    });

    test('a failing task is tried again, then reported once as failed', async () => {
      const q = await make({ concurrency: 2, attempts: 3, backoffMs: 20 });
      try {
        const tries = new Map<string, number>();
        const failed: JobTask[] = [];
        q.start(
          async (task) => {
            const key = task.jobId;
            tries.set(key, (tries.get(key) ?? 0) + 1);
            if (key.startsWith('flaky') && (tries.get(key) ?? 0) < 2) throw new Error('worker crashed');
            if (key.startsWith('broken')) throw new Error('always fails');
          },
          (task) => failed.push(task),
        );
        const flaky = `flaky-${randomUUID()}`;
        const broken = `broken-${randomUUID()}`;
        await q.add([
          { kind: 'book', jobId: flaky },
          { kind: 'book', jobId: broken },
        ]);
        await until(() => failed.length === 1 && tries.get(flaky) === 2, 'the retries', 15_000);
        assert.equal(tries.get(broken), 3);
        assert.deepEqual(failed, [{ kind: 'book', jobId: broken }]);
      } finally {
        await q.close();
      }
    });

    test("drop removes a job's waiting tasks; close aborts the running ones", async () => {
      const q = await make({ concurrency: 1, attempts: 1, backoffMs: 10 });
      const jobId = randomUUID();
      const ran: number[] = [];
      let aborted = false;
      q.start(
        async (task, signal) => {
          if (task.kind !== 'piece') return;
          ran.push(task.n);
          if (task.n === 0) {
            await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
            aborted = signal.aborted;
          }
        },
        () => undefined,
      );
      await q.add(pieces(jobId, 5));
      await until(() => ran.length === 1, 'the first task');
      await q.drop(jobId, pieces(jobId, 5));
      assert.equal((await q.counts()).waiting, 0);
      await q.close();
      assert.ok(aborted, 'the running task saw its signal abort');
      assert.deepEqual(ran, [0]);
    });
  });
}
