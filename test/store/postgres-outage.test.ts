import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { settleReadiness, startServer, type TestServer } from '../helpers/server.ts';
import { dropSchema, randomSchema, TEST_PG_URL, withPg } from '../helpers/stores.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';

// The service reaches PostgreSQL through a TCP proxy this file controls, so "the database went away" is
// staged without stopping the server other tests share.
const pgUrl = new URL(TEST_PG_URL);
const pgPort = Number(pgUrl.port || 5432);
const proxies: TcpProxy[] = [];
const schemas: string[] = [];
after(async () => {
  for (const p of proxies) await p.cut();
  for (const s of schemas) await dropSchema(s);
});

async function serverBehind(proxy: TcpProxy, env: Record<string, string> = {}): Promise<{ s: TestServer; schema: string }> {
  const url = new URL(TEST_PG_URL);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  const schema = randomSchema('out');
  schemas.push(schema);
  const s = await startServer({ env: { DATABASE_URL: url.toString(), WORKERS: '1', ...env }, pgSchema: schema });
  return { s, schema };
}

async function proxyFor(): Promise<TcpProxy> {
  const proxy = await TcpProxy.create(pgPort, pgUrl.hostname);
  proxies.push(proxy);
  return proxy;
}

/** A request that must answer, not hang: a generous deadline turns a hang into a failure. */
async function answer(
  s: TestServer,
  path: string,
  init: Parameters<TestServer['request']>[1] = {},
): Promise<{ res: Response; ms: number }> {
  const started = performance.now();
  const res = await Promise.race([
    s.request(path, init),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${path} hung`)), 20_000)),
  ]);
  return { res, ms: Math.round(performance.now() - started) };
}

async function until(condition: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** What /readyz says about the database (other checks, such as engines, are not this file's business). */
async function databaseCheck(s: TestServer): Promise<string | undefined> {
  const res = await s.request('/readyz');
  return ((await res.json()) as { checks: Record<string, string> }).checks.database;
}

async function expect503(res: Response): Promise<void> {
  assert.equal(res.status, 503);
  const body = (await res.json()) as { error: unknown };
  assert.equal(typeof body.error, 'string');
  assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
}

describe('PostgreSQL goes away', () => {
  test('requests that need it answer 503 at once; the node recovers by itself; logged once each way', async () => {
    const proxy = await proxyFor();
    await proxy.restore();
    const { s } = await serverBehind(proxy);
    try {
      const { key, cookie } = await s.newKey('pg-down@example.com');
      await proxy.cut();

      const keyed = await answer(s, '/api/auth/api-keys', { bearer: key });
      await expect503(keyed.res);
      const session = await answer(s, '/api/auth/session', { cookie });
      await expect503(session.res);
      const login = await answer(s, '/api/auth/login', { json: { email: 'x@example.com' } });
      await expect503(login.res);
      for (let i = 0; i < 5; i++) assert.equal((await answer(s, '/api/auth/api-keys', { bearer: key })).res.status, 503);
      const ready = await answer(s, '/readyz');
      assert.equal(ready.res.status, 503);
      assert.equal(((await ready.res.json()) as { checks: Record<string, string> }).checks.database, 'failing');
      assert.equal((await answer(s, '/healthz')).res.status, 200, 'the process itself is fine');
      assert.equal((await answer(s, '/api/auth/session')).res.status, 200, 'requests that need no database still work');
      process.stdout.write(`# database refused: 503 after ${keyed.ms} ms (key), ${login.ms} ms (login)\n`);
      assert.equal(s.logs.filter((l) => l.includes('database unreachable')).length, 1, 'loss logged once');

      await proxy.restore();
      await until(async () => (await s.request('/api/auth/api-keys', { bearer: key })).status === 200, 'the node to recover');
      assert.equal(await databaseCheck(s), 'ok');
      assert.equal(s.logs.filter((l) => l.includes('database reachable again')).length, 1, 'recovery logged once');
    } finally {
      await proxy.restore();
      await settleReadiness(s);
      await s.close();
    }
  });

  test('a silent network (packets lost) also ends in 503, not a hang', async () => {
    const proxy = await proxyFor();
    await proxy.restore();
    const { s } = await serverBehind(proxy);
    try {
      const { key } = await s.newKey('pg-silent@example.com');
      // Open a few pooled connections so both kinds are covered: pooled ones and new ones.
      await Promise.all(Array.from({ length: 4 }, () => s.request('/api/auth/api-keys', { bearer: key })));
      proxy.silence();
      const results = await Promise.all(Array.from({ length: 4 }, () => answer(s, '/api/auth/api-keys', { bearer: key })));
      for (const { res } of results) await expect503(res);
      process.stdout.write(`# silent network: 503 after ${results.map((r) => r.ms).join(', ')} ms\n`);
      await proxy.cut();
      await proxy.restore();
      await until(async () => (await s.request('/api/auth/api-keys', { bearer: key })).status === 200, 'the node to recover');
    } finally {
      await proxy.restore();
      await settleReadiness(s);
      await s.close();
    }
  });

  test('no acknowledged write is lost when the database drops mid-burst', async () => {
    const proxy = await proxyFor();
    await proxy.restore();
    const { s, schema } = await serverBehind(proxy);
    try {
      const { cookie } = await s.signIn('burst@example.com');
      const acknowledged: string[] = [];
      const statuses: number[] = [];
      // Five writers, each creating keys one after another until the database is gone.
      const writer = async (w: number) => {
        for (let i = 0; i < 8; i++) {
          const res = await s.request('/api/auth/api-keys', { json: { name: `w${w}-${i}` }, cookie, sameOrigin: true });
          statuses.push(res.status);
          if (res.status === 201) acknowledged.push(((await res.json()) as { id: string }).id);
          else {
            await res.arrayBuffer();
            return;
          }
        }
      };
      const writers = Array.from({ length: 5 }, (_, w) => writer(w));
      await until(async () => acknowledged.length >= 8, 'some writes to be acknowledged', 10_000);
      await proxy.cut();
      await Promise.all(writers);
      assert.ok(
        statuses.every((st) => st === 201 || st === 503),
        `only 201 or 503: ${statuses.join(',')}`,
      );
      assert.ok(statuses.includes(503), 'the cut happened during the burst');
      process.stdout.write(
        `# burst: ${acknowledged.length} acknowledged, ${statuses.filter((st) => st === 503).length} refused with 503\n`,
      );

      await proxy.restore();
      const stored = await withPg(async (c) => (await c.query<{ id: string }>(`select id from ${schema}.api_keys`)).rows.map((r) => r.id));
      for (const id of acknowledged) assert.ok(stored.includes(id), `acknowledged key ${id} is stored`);
    } finally {
      await proxy.restore();
      await settleReadiness(s);
      await s.close();
    }
  });

  test('a node started while the database is down serves 503, then migrates and serves when it appears', async () => {
    const proxy = await proxyFor();
    const { s } = await serverBehind(proxy);
    try {
      const login = await answer(s, '/api/auth/login', { json: { email: 'late-db@example.com' } });
      await expect503(login.res);
      assert.equal((await answer(s, '/readyz')).res.status, 503);
      assert.equal(await databaseCheck(s), 'failing');
      assert.equal((await answer(s, '/healthz')).res.status, 200);
      await proxy.restore();
      await until(async () => (await databaseCheck(s)) === 'ok', 'migrations to run in the background');
      const { key } = await s.newKey('late-db@example.com');
      assert.equal((await s.request('/api/auth/api-keys', { bearer: key })).status, 200);
    } finally {
      await proxy.restore();
      await settleReadiness(s);
      await s.close();
    }
  });
});
