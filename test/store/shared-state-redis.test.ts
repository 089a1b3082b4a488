import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { parseRedisUrl } from '../../src/store/shared-state/redis-link.ts';
import { RedisSharedState } from '../../src/store/shared-state/redis.ts';
import type { SharedEvent } from '../../src/store/shared-state/shared-state.ts';
import { deleteRedisPrefix, randomPrefix, redisKeys, TEST_REDIS_URL } from '../helpers/stores.ts';
import { sharedStateSuite } from './shared-state.suite.ts';

const prefixes: string[] = [];
function freshPrefix(): string {
  const prefix = randomPrefix('ss');
  prefixes.push(prefix);
  return prefix;
}
after(async () => {
  for (const prefix of prefixes) await deleteRedisPrefix(prefix);
});

const open = (prefix: string) => RedisSharedState.open(parseRedisUrl(TEST_REDIS_URL, prefix));

sharedStateSuite('redis', () => open(freshPrefix()));

async function until(condition: () => boolean, what: string, ms = 2_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('Redis shared state across nodes', () => {
  test('two nodes with one prefix share one limit: 40 concurrent hits over both, exactly 10 allowed', async () => {
    const prefix = freshPrefix();
    const [a, b] = await Promise.all([open(prefix), open(prefix)]);
    try {
      assert.equal(a.shared && b.shared, true);
      const key = `api:key:${randomUUID()}`;
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).hit(key, 10, 60_000)));
      assert.equal(results.filter((r) => r.allowed).length, 10);
      const refused = results.filter((r) => !r.allowed);
      assert.ok(refused.every((r) => r.remaining === 0 && r.retryAfterMs > 0 && r.retryAfterMs <= 60_000));
      assert.deepEqual(await redisKeys(`${prefix}rl:`), [`${prefix}rl:${key}`], 'one sorted set, under the prefix');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('an event published on one node reaches the other; the publisher hears it exactly once', async () => {
    const prefix = freshPrefix();
    const [a, b] = await Promise.all([open(prefix), open(prefix)]);
    try {
      const seenA: SharedEvent[] = [];
      const seenB: SharedEvent[] = [];
      a.subscribe((e) => seenA.push(e));
      b.subscribe((e) => seenB.push(e));
      const keyId = randomUUID();
      await a.publish({ type: 'key-revoked', keyId });
      await until(() => seenB.length > 0, 'the event on node B', 1_000);
      assert.deepEqual(seenB, [{ type: 'key-revoked', keyId }]);
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(seenA, [{ type: 'key-revoked', keyId }], 'no echo from Redis');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('deployments with different prefixes share nothing', async () => {
    const [a, b] = await Promise.all([open(freshPrefix()), open(freshPrefix())]);
    try {
      const seenB: SharedEvent[] = [];
      b.subscribe((e) => seenB.push(e));
      const key = `k:${randomUUID()}`;
      assert.equal((await a.hit(key, 1, 60_000)).allowed, true);
      assert.equal((await b.hit(key, 1, 60_000)).allowed, true, 'a separate counter');
      await a.publish({ type: 'session-ended', idHash: 'abc' });
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(seenB, []);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('the refusal mirrors the in-memory limiter: Retry-After runs to when the oldest counted hit leaves', async () => {
    const state = await open(freshPrefix());
    try {
      const key = `k:${randomUUID()}`;
      const first = await state.hit(key, 2, 2_000);
      await new Promise((r) => setTimeout(r, 300));
      await state.hit(key, 2, 2_000);
      const refused = await state.hit(key, 2, 2_000);
      assert.equal(first.allowed, true);
      assert.equal(refused.allowed, false);
      // The first hit leaves the window about 1.7 s from now; the second about 2 s from now.
      assert.ok(refused.retryAfterMs > 1_000 && refused.retryAfterMs <= 1_750, `retryAfterMs ${refused.retryAfterMs}`);
      assert.ok(refused.resetMs >= refused.retryAfterMs && refused.resetMs <= 2_000, `resetMs ${refused.resetMs}`);
    } finally {
      await state.close();
    }
  });

  test('REDIS_URL ?prefix= sets the prefix and is not passed on; a bad prefix is refused', () => {
    assert.deepEqual(parseRedisUrl('redis://127.0.0.1:6379/2?prefix=eu1:'), { url: 'redis://127.0.0.1:6379/2', prefix: 'eu1:' });
    assert.equal(parseRedisUrl('redis://127.0.0.1:6379').prefix, 'voxsmith:');
    assert.equal(parseRedisUrl('redis://h?prefix=a:', 'b:').prefix, 'b:', 'the option wins');
    assert.throws(() => parseRedisUrl('redis://h?prefix=a*b'), /prefix/);
  });
});
