import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoreLogger } from '../../src/store/logger.ts';
import { parseRedisUrl } from '../../src/store/shared-state/redis-link.ts';
import { RedisSharedState } from '../../src/store/shared-state/redis.ts';
import type { SharedEvent } from '../../src/store/shared-state/shared-state.ts';
import { PrivateRedis } from '../helpers/redis-server.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';
import { settleReadiness, startServer, type TestServer } from '../helpers/server.ts';

// These tests kill and restart their own redis-server on a spare port; the shared one is never touched.
const servers: PrivateRedis[] = [];
const proxies: TcpProxy[] = [];
after(async () => {
  for (const p of proxies) await p.cut();
  for (const s of servers) await s.stop();
});

function capture(): { log: StoreLogger; lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    log: {
      info: (_o, msg) => lines.push(`info ${msg}`),
      warn: (_o, msg) => lines.push(`warn ${msg}`),
      error: (_o, msg) => lines.push(`error ${msg}`),
    },
  };
}

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** What /readyz says about Redis (other checks, such as engines, are not this file's business). */
async function redisCheck(s: TestServer): Promise<string | undefined> {
  const res = await s.request('/readyz');
  return ((await res.json()) as { checks: Record<string, string> }).checks.redis;
}

const count = (lines: string[], pattern: RegExp) => lines.filter((l) => pattern.test(l)).length;

describe('Redis goes away and comes back', () => {
  test('local limits and events meanwhile, each change logged once, then shared again with a resync', async () => {
    const redis = await PrivateRedis.start();
    servers.push(redis);
    const { log, lines } = capture();
    const a = await RedisSharedState.open(parseRedisUrl(redis.url, 'o1:'), log);
    const b = await RedisSharedState.open(parseRedisUrl(redis.url, 'o1:'));
    const seenA: SharedEvent[] = [];
    const seenB: SharedEvent[] = [];
    a.subscribe((e) => seenA.push(e));
    b.subscribe((e) => seenB.push(e));
    try {
      const shared = [];
      for (let i = 0; i < 4; i++) shared.push((await (i % 2 ? a : b).hit('k1', 3, 60_000)).allowed);
      assert.deepEqual(shared, [true, true, true, false], 'one limit over both nodes');

      await redis.stop();
      const during = [];
      for (let i = 0; i < 6; i++) during.push((await a.hit('k2', 3, 60_000)).allowed);
      assert.deepEqual(during, [true, true, true, false, false, false], 'the limit still holds, counted locally');
      assert.equal(a.shared, false);
      await a.publish({ type: 'key-revoked', keyId: 'while-down' });
      assert.deepEqual(seenA, [{ type: 'key-revoked', keyId: 'while-down' }], 'this node still hears its own events');
      for (let i = 0; i < 5; i++) await a.hit('k3', 100, 60_000);
      assert.equal(count(lines, /^warn Redis unreachable/), 1, lines.join('\n'));

      await redis.start();
      await until(() => a.shared && b.shared, 'both nodes back on Redis');
      assert.equal(count(lines, /^info Redis reachable again/), 1, lines.join('\n'));
      assert.ok(
        seenA.some((e) => e.type === 'resync'),
        'this node re-checks what it may have missed',
      );
      await until(() => seenB.some((e) => e.type === 'resync'), 'the other node told to re-check (A could not send while down)');
      assert.ok(!seenB.some((e) => e.type === 'key-revoked'), 'the event itself was lost with Redis; resync stands in for it');

      const after = [];
      for (let i = 0; i < 4; i++) after.push((await (i % 2 ? a : b).hit('k4', 2, 60_000)).allowed);
      assert.deepEqual(after, [true, true, false, false], 'one shared limit again');
      // Each node's subscription is back too: an event from one reaches the other.
      await a.publish({ type: 'key-revoked', keyId: 'after' });
      await until(() => seenB.some((e) => e.type === 'key-revoked' && e.keyId === 'after'), 'B hears A again');
      assert.equal(count(lines, /^warn/), 1, 'nothing more logged');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('a node starts while Redis is not there, serves locally, and joins when Redis appears', async () => {
    const redis = await PrivateRedis.stopped();
    servers.push(redis);
    const { log, lines } = capture();
    const state = await RedisSharedState.open(parseRedisUrl(redis.url, 'o2:'), log);
    try {
      assert.equal(state.shared, false);
      assert.deepEqual([(await state.hit('k', 1, 60_000)).allowed, (await state.hit('k', 1, 60_000)).allowed], [true, false]);
      await assert.rejects(state.ping(), 'readiness reports Redis missing');
      assert.equal(count(lines, /^warn Redis unreachable at start/), 1);
      await redis.start();
      await until(() => state.shared, 'joining Redis');
      await state.ping();
      assert.equal(count(lines, /^info Redis reachable again/), 1);
    } finally {
      await state.close();
    }
  });
});

describe('Redis stops answering (silent network)', () => {
  test('the node falls back after one command timeout and comes back once the connection is reset', async () => {
    const redis = await PrivateRedis.start();
    servers.push(redis);
    const proxy = await TcpProxy.start(redis.port);
    proxies.push(proxy);
    const { log, lines } = capture();
    const state = await RedisSharedState.open(parseRedisUrl(`redis://127.0.0.1:${proxy.port}`, 'o4:'), log);
    try {
      assert.equal(state.shared, true);
      proxy.silence();
      const started = performance.now();
      const during = [];
      for (let i = 0; i < 4; i++) during.push((await state.hit('k', 2, 60_000)).allowed);
      process.stdout.write(`# silent Redis: 4 hits answered locally in ${Math.round(performance.now() - started)} ms\n`);
      assert.deepEqual(during, [true, true, false, false]);
      assert.equal(state.shared, false);
      assert.equal(count(lines, /^warn Redis unreachable/), 1);
      // The network heals the way TCP does after a long partition: connections reset, new ones work.
      await proxy.cut();
      await proxy.restore();
      await until(() => state.shared, 'back on Redis');
      assert.equal(count(lines, /^info Redis reachable again/), 1);
    } finally {
      await state.close();
    }
  });
});

describe('the service while Redis is away', () => {
  test('keeps serving with local limits, still refuses revoked keys, reports not ready, recovers', async () => {
    const redis = await PrivateRedis.start();
    servers.push(redis);
    const s = await startServer({ env: { REDIS_URL: `${redis.url}/?prefix=o3:`, WORKERS: '1' } });
    try {
      assert.equal(s.app.services.sharedState.kind, 'redis');
      const { key, id, cookie } = await s.newKey('redis-down@example.com');
      assert.equal(await redisCheck(s), 'ok');

      await redis.stop();
      assert.equal((await s.request('/api/auth/api-keys', { bearer: key })).status, 200, 'keys still work');
      assert.equal((await s.request('/api/auth/login', { json: { email: 'again@example.com' } })).status, 200, 'rate-limited route served');
      const revoke = await s.request('/api/auth/api-keys', { method: 'DELETE', json: { key_id: id }, cookie, sameOrigin: true });
      assert.equal(revoke.status, 200, 'revocation does not need Redis');
      assert.equal((await s.request('/api/auth/api-keys', { bearer: key })).status, 401, 'the database is the truth');
      const ready = await s.request('/readyz');
      assert.equal(ready.status, 503);
      const body = (await ready.json()) as { error: string; checks: Record<string, string> };
      assert.equal(typeof body.error, 'string');
      assert.equal(body.checks.database, 'ok');
      assert.equal(body.checks.redis, 'failing');
      assert.equal((await s.request('/healthz')).status, 200);
      const lost = s.logs.filter((l) => l.includes('Redis unreachable'));
      assert.equal(lost.length, 1, 'logged once');

      await redis.start();
      await until(async () => (await redisCheck(s)) === 'ok', 'ready again');
      assert.equal(s.logs.filter((l) => l.includes('Redis reachable again')).length, 1);
    } finally {
      await settleReadiness(s);
      await s.close();
    }
  });

  test('a node started with Redis missing enforces its limits locally', async () => {
    const redis = await PrivateRedis.stopped();
    servers.push(redis);
    const s = await startServer({ env: { REDIS_URL: redis.url, LOGIN_RATE_LIMIT_PER_MINUTE: '2', WORKERS: '1' } });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await s.request('/api/auth/verify', { json: { token: `nope${i}` } })).status);
      assert.deepEqual(statuses, [400, 400, 429]);
      assert.equal(s.logs.filter((l) => l.includes('Redis unreachable at start')).length, 1);
    } finally {
      await settleReadiness(s);
      await s.close();
    }
  });
});
