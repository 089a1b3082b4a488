import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { BullTaskQueue } from '../../src/jobs/queue/bullmq.ts';
import type { JobTask } from '../../src/jobs/queue/task-queue.ts';
import { deleteRedisPrefix, randomPrefix, TEST_REDIS_URL } from '../helpers/stores.ts';
import { taskQueueSuite } from './task-queue.suite.ts';

const prefixes: string[] = [];
function freshPrefix(): string {
  const prefix = randomPrefix('jq');
  prefixes.push(prefix);
  return prefix;
}
after(async () => {
  for (const prefix of prefixes) await deleteRedisPrefix(prefix);
});

taskQueueSuite('bullmq', async (options) => new BullTaskQueue({ ...options, url: TEST_REDIS_URL, prefix: freshPrefix(), lockMs: 2_000 }));

test('bullmq: two queues on one Redis prefix (two nodes) share the tasks of one job, each run once', async () => {
  const prefix = freshPrefix();
  const make = () =>
    new BullTaskQueue({ concurrency: 2, attempts: 3, backoffMs: 50, url: TEST_REDIS_URL, prefix, lockMs: 2_000, stalledIntervalMs: 500 });
  const [a, b] = [make(), make()];
  const jobId = randomUUID();
  const by = new Map<number, string[]>();
  const note = (node: string) => async (task: JobTask) => {
    if (task.kind !== 'piece') return;
    by.set(task.n, [...(by.get(task.n) ?? []), node]);
    await new Promise((r) => setTimeout(r, 30));
  };
  try {
    a.start(note('a'), () => undefined);
    b.start(note('b'), () => undefined);
    await a.add(Array.from({ length: 30 }, (_, n) => ({ kind: 'piece' as const, jobId, n })));
    const deadline = Date.now() + 20_000;
    while (by.size < 30 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(by.size, 30);
    const nodes = [...by.values()].flat();
    assert.ok(nodes.includes('a') && nodes.includes('b'), 'both nodes took tasks of the job');
    assert.ok(
      [...by.values()].every((v) => v.length === 1),
      'each task ran once',
    );
  } finally {
    await a.close();
    await b.close();
  }
});
