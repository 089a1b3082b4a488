// MAX_CONCURRENT_PER_KEY across nodes: two schedulers, each with its own connection to the same Redis prefix
// (two nodes as far as Redis can tell), count one key's syntheses together.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../src/errors.ts';
import { FairScheduler } from '../../src/speech/scheduler.ts';
import { parseRedisUrl } from '../../src/store/shared-state/redis-link.ts';
import { RedisSharedState } from '../../src/store/shared-state/redis.ts';
import { deleteRedisPrefix, randomPrefix, TEST_REDIS_URL } from '../helpers/stores.ts';

const prefix = randomPrefix('sched');
const states: RedisSharedState[] = [];
after(async () => {
  for (const s of states) await s.close();
  await deleteRedisPrefix(prefix);
});

async function node(slots = 8): Promise<FairScheduler> {
  const state = await RedisSharedState.open(parseRedisUrl(TEST_REDIS_URL, prefix));
  states.push(state);
  assert.equal(state.shared, true, 'Redis answers');
  return new FairScheduler({ slots, maxPerKey: 2, shared: state });
}

const refused = (err: unknown): boolean => err instanceof AppError && err.code === 'concurrency_limited';
const open = (): AbortSignal => new AbortController().signal;

/**
 * Takes `key` twice, on `x` then `y`, and gives both back. A release reaches Redis on its node's own
 * connection, so right after one the other node may still see it held: refusals are retried for a while.
 */
async function bothFree(key: string, x: FairScheduler, y: FairScheduler): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const held: Array<() => void> = [];
    try {
      held.push(await x.acquire(key, open()));
      held.push(await y.acquire(key, open()));
      return;
    } catch (err) {
      if (!refused(err) || Date.now() > deadline) throw err;
    } finally {
      for (const release of held) release();
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('per-key concurrency across nodes', () => {
  test("a key's syntheses on both nodes count against one MAX_CONCURRENT_PER_KEY; a freed one can be used on either", async () => {
    const [a, b] = [await node(), await node()];
    const signal = open();
    const onA = await a.acquire('key-1', signal);
    const onB = await b.acquire('key-1', signal);
    await assert.rejects(() => a.acquire('key-1', signal), refused, 'a third on A');
    await assert.rejects(() => b.acquire('key-1', signal), refused, 'a third on B');
    const other = await b.acquire('key-2', signal);
    onA();
    const again = await b.acquire('key-1', signal);
    await assert.rejects(() => a.acquire('key-1', signal), refused, 'two held again, both on B');
    for (const release of [onB, other, again]) release();
    await bothFree('key-1', a, a);
  });

  test('a request that leaves while waiting for a slot gives its lease back', async () => {
    const [a, b, one] = [await node(), await node(), await node(1)];
    const holder = await one.acquire('holder', open());
    const leaving = new AbortController();
    const waiting = one.acquire('key-3', leaving.signal);
    leaving.abort(new Error('client left'));
    await assert.rejects(waiting, /client left/);
    holder();
    // Both of key-3's leases are free: two more on the other nodes are granted.
    await bothFree('key-3', a, b);
  });
});
