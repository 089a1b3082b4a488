import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useService } from '../helpers/fixture.ts';

// Guessing keys must run into the rate limit: 150 requests with an unknown key were once all answered 401, never 429.
const LIMIT = 4;

interface ErrorEnvelope {
  error: string;
  code: string;
  request_id: string;
}

describe('failed authentications are rate limited per address', () => {
  const s = useService({ env: { AUTH_FAILURE_LIMIT_PER_MINUTE: String(LIMIT) } });

  test('unknown, malformed keys and stale sessions count; past the limit 429 with Retry-After in the envelope', async () => {
    const { key } = await s.newKey('authfail@example.com');
    const unknown = `service_sk_${'A'.repeat(50)}`;
    const attempts: Array<() => Promise<Response>> = [
      () => s.request('/api/auth/api-keys', { bearer: unknown }),
      () => s.request('/v1/speak', { json: { text: 'hi' }, bearer: unknown }),
      () => s.request('/api/auth/api-keys', { headers: { authorization: 'Basic abc' } }),
      () => s.request('/api/auth/session', { cookie: 'vox_session=not-a-session' }),
    ];
    assert.equal(attempts.length, LIMIT);
    const statuses = [];
    for (const attempt of attempts) statuses.push((await attempt()).status);
    assert.deepEqual(statuses, [401, 401, 401, 200], 'within the limit: the usual answers (a stale cookie just means signed out)');

    const refused = await s.request('/api/auth/api-keys', { bearer: unknown });
    assert.equal(refused.status, 429);
    const seconds = Number(refused.headers.get('retry-after'));
    assert.ok(Number.isInteger(seconds) && seconds >= 1 && seconds <= 60, `Retry-After ${refused.headers.get('retry-after')}`);
    const body = (await refused.json()) as ErrorEnvelope;
    assert.equal(body.code, 'rate_limited');
    assert.equal(typeof body.error, 'string');
    assert.ok(body.request_id);
    assert.equal((await s.request('/api/auth/session', { cookie: 'vox_session=still-not' })).status, 429, 'stale sessions too');
    assert.equal((await s.request('/v1/speak', { json: { text: 'hi' }, bearer: 'garbage' })).status, 429);

    // A caller with a working key is not locked out by someone guessing from the same address.
    assert.equal((await s.request('/api/auth/api-keys', { bearer: key })).status, 200);
  });
});
