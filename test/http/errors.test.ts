import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { useService } from '../helpers/fixture.ts';

const s = useService();

async function expectError(res: Response, status: number): Promise<string> {
  assert.equal(res.status, status);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  const body = (await res.json()) as { error: unknown };
  assert.equal(typeof body.error, 'string');
  return body.error as string;
}

describe('framework errors share the JSON error body', () => {
  test('unknown route is 404', async () => {
    await expectError(await s.request('/api/nothing-here'), 404);
  });

  test('malformed JSON is 400', async () => {
    await expectError(await s.request('/api/auth/verify', { body: '{"token":', headers: { 'content-type': 'application/json' } }), 400);
  });

  test('a body over 64 KiB is 413', async () => {
    await expectError(await s.request('/api/auth/verify', { json: { token: 'x'.repeat(70 * 1024) } }), 413);
  });

  test('an unsupported content type is 415', async () => {
    await expectError(
      await s.request('/api/auth/verify', { body: '<token>abc</token>', headers: { 'content-type': 'application/xml' } }),
      415,
    );
  });

  test('__proto__ keys are refused and pollute nothing', async () => {
    const res = await s.request('/api/auth/verify', {
      body: '{"token":"abc","__proto__":{"polluted":true}}',
      headers: { 'content-type': 'application/json' },
    });
    await expectError(res, 400);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    const ctor = await s.request('/api/auth/verify', {
      body: '{"token":"abc","constructor":{"prototype":{"polluted":true}}}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(ctor.status, 400);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  test('login is rate limited per IP with Retry-After in whole seconds', async () => {
    const limitedServer = await startServer({ env: { LOGIN_RATE_LIMIT_PER_MINUTE: '3' } });
    after(() => limitedServer.close());
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 5; i++) {
      const res = await limitedServer.request('/api/auth/login', { json: { email: `rl${i}@example.com` } });
      statuses.push(res.status);
      assert.ok(res.headers.get('ratelimit-policy'), 'RateLimit-Policy header');
      assert.match(res.headers.get('ratelimit') ?? '', /r=\d+;t=\d+/);
      if (res.status === 429) limited = res;
      else await res.arrayBuffer();
    }
    assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
    assert.ok(limited);
    const retry = limited.headers.get('retry-after') ?? '';
    assert.match(retry, /^[1-9]\d*$/, 'whole seconds, never 0');
    assert.ok(Number(retry) <= 60);
    await expectError(limited, 429);
  });
});

describe('per-address login limit', () => {
  test('one address gets at most LOGIN_ADDRESS_LIMIT_PER_HOUR links, whoever asks', async () => {
    const limitedServer = await startServer({ env: { LOGIN_ADDRESS_LIMIT_PER_HOUR: '2' } });
    after(() => limitedServer.close());
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await limitedServer.request('/api/auth/login', { json: { email: 'victim@example.com' } })).status);
    assert.deepEqual(statuses, [200, 200, 429]);
    const other = await limitedServer.request('/api/auth/login', { json: { email: 'someone-else@example.com' } });
    assert.equal(other.status, 200);
  });
});

describe('behind a proxy', () => {
  test('per-IP limits use X-Forwarded-For only from a trusted proxy', async () => {
    const trusted = await startServer({ env: { LOGIN_RATE_LIMIT_PER_MINUTE: '1', TRUST_PROXY: '127.0.0.1' } });
    const untrusted = await startServer({ env: { LOGIN_RATE_LIMIT_PER_MINUTE: '1' } });
    after(() => Promise.all([trusted.close(), untrusted.close()]));
    const login = (srv: TestServer, ip: string) =>
      srv.request('/api/auth/login', { json: { email: `p${ip}@example.com` }, headers: { 'x-forwarded-for': ip } }).then((r) => r.status);
    assert.deepEqual(
      [await login(trusted, '203.0.113.1'), await login(trusted, '203.0.113.2'), await login(trusted, '203.0.113.1')],
      [200, 200, 429],
    );
    assert.deepEqual(
      [await login(untrusted, '203.0.113.1'), await login(untrusted, '203.0.113.2')],
      [200, 429],
      'a client cannot pick its own address',
    );
  });
});

describe('internal errors', () => {
  test('a crash inside a handler is a 500 whose message is hidden', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'voxsmith-500-'));
    const logs: string[] = [];
    const app = await buildApp(loadConfig({ DATA_DIR: dataDir }), {
      logStream: new Writable({ write: (c: Buffer, _e, cb) => (logs.push(c.toString()), cb()) }),
    });
    app.get('/boom', async () => {
      throw new Error('secret internal detail');
    });
    const res = await app.inject({ url: '/boom' });
    assert.equal(res.statusCode, 500);
    const body = res.json() as { error: string; request_id: string };
    assert.equal(typeof body.error, 'string');
    assert.ok(!body.error.includes('secret internal detail'));
    assert.ok(body.request_id);
    assert.ok(logs.join('').includes('secret internal detail'), 'the detail is logged for operators');
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
});
