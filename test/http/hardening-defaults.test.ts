import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_STREAM_LIMITS } from '../../src/http/stream/connection.ts';
import { useService } from '../helpers/fixture.ts';

// Defaults safe for a server on the internet: short-lived sign-in links, auth answers never cached, voice names
// without bidi tricks, stalled streams dropped, a strict session cookie.

describe('defaults: sign-in link, session cookie, caching, names', () => {
  const s = useService({ user: 'defaults@example.com' });

  test('a sign-in link lives 10 minutes by default', async () => {
    const res = await s.request('/api/auth/login', { json: { email: 'ttl@example.com' } });
    assert.match(((await res.json()) as { message: string }).message, /expires in 10 minutes/);
    const row = await s.app.services.db
      .selectFrom('magic_links')
      .select(['created_at', 'expires_at'])
      .where('email', '=', 'ttl@example.com')
      .executeTakeFirstOrThrow();
    assert.equal(Date.parse(row.expires_at) - Date.parse(row.created_at), 10 * 60_000);
  });

  test('auth answers are never cached: session (signed in or not), keys, errors', async () => {
    const { cookie } = await s.signIn('nostore@example.com');
    for (const res of [
      await s.request('/api/auth/session'),
      await s.request('/api/auth/session', { cookie }),
      await s.request('/api/auth/api-keys', { cookie }),
      await s.request('/api/auth/api-keys'),
      await s.request('/api/auth/login', { json: { email: 'x@example.com' } }),
    ]) {
      assert.equal(res.headers.get('cache-control'), 'no-store', res.url);
    }
  });

  test('voice names refuse bidi overrides and control characters', async () => {
    for (const name of ['evil\u202Egnp.exe', 'a\u2066b', 'tab\there', 'bell\u0007']) {
      const res = await s.call('/v1/forge/breed', { json: { parent_a: 'flite-slt', parent_b: 'flite-rms', name } });
      assert.equal(res.status, 400, JSON.stringify(name));
      const body = (await res.json()) as { code: string; error: string };
      assert.equal(body.code, 'validation');
      assert.match(body.error, /name/);
    }
  });

  test('a stalled stream is dropped after at most 10 s by default', () => {
    assert.ok(DEFAULT_STREAM_LIMITS.stallTimeoutMs <= 10_000, String(DEFAULT_STREAM_LIMITS.stallTimeoutMs));
  });
});

describe('under an https PUBLIC_URL the session cookie is __Host-', () => {
  const s = useService({ env: { PUBLIC_URL: 'https://voxsmith.test' } });

  test('set as __Host-vox_session (Secure, Path=/, no Domain) and accepted back', async () => {
    const n = s.mail.messages.length;
    await s.request('/api/auth/login', { json: { email: 'host@example.com' } });
    const token = await s.mail.tokenFor('host@example.com', n);
    const verify = await s.request('/api/auth/verify', { json: { token } });
    assert.equal(verify.status, 200);
    const set = verify.headers.getSetCookie().find((c) => c.includes('vox_session='));
    assert.ok(set, 'a session cookie');
    assert.ok(set.startsWith('__Host-vox_session='), set);
    assert.match(set, /;\s*Secure/i);
    assert.match(set, /;\s*Path=\//i);
    assert.doesNotMatch(set, /Domain=/i);
    const cookie = set.split(';')[0];
    const session = (await (await s.request('/api/auth/session', { cookie })).json()) as { user: { email: string } | null };
    assert.equal(session.user?.email, 'host@example.com');
    const plain = cookie.replace('__Host-', '');
    const ignored = (await (await s.request('/api/auth/session', { cookie: plain })).json()) as { user: unknown };
    assert.equal(ignored.user, null, 'the unprefixed name is not a session under https');
  });
});
