import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import WebSocket from 'ws';
import { startServer } from '../helpers/server.ts';
import { useService } from '../helpers/fixture.ts';

const s = useService();

describe('magic-link sign-in: happy path', () => {
  test('login mails a link; verify creates the user and a session cookie', async () => {
    const login = await s.request('/api/auth/login', { json: { email: 'Alice@Example.com ' } });
    assert.equal(login.status, 200);
    const { message } = (await login.json()) as { message: string };
    assert.match(message, /link/);
    const token = await s.mail.tokenFor('alice@example.com');
    assert.equal(Buffer.from(token, 'base64url').length, 32);

    const verify = await s.request('/api/auth/verify', { json: { token } });
    assert.equal(verify.status, 200);
    const body = (await verify.json()) as { user: { id: string; email: string; plan: string } };
    assert.equal(body.user.email, 'alice@example.com');
    assert.equal(body.user.plan, 'free');
    assert.ok(body.user.id);

    const cookie = verify.headers.getSetCookie().find((c) => c.startsWith('vox_session='));
    assert.ok(cookie);
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Lax/i);
    assert.match(cookie, /Path=\//);
    assert.doesNotMatch(cookie, /Secure/i, 'plain http PUBLIC_URL: no Secure flag');

    const session = await s.request('/api/auth/session', { cookie: cookie.split(';')[0] });
    assert.equal(session.status, 200);
    assert.deepEqual(await session.json(), { user: body.user });
  });

  test('the same user comes back on a second sign-in', async () => {
    const a = await s.signIn('bob@example.com');
    const b = await s.signIn('bob@example.com');
    assert.equal(a.user.id, b.user.id);
    assert.notEqual(a.cookie, b.cookie);
  });

  test('GET /verify shows a page and does not consume the token', async () => {
    const before = s.mail.messages.length;
    await s.request('/api/auth/login', { json: { email: 'scanner@example.com' } });
    const token = await s.mail.tokenFor('scanner@example.com', before);
    const page = await s.request(`/verify?token=${token}`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    const html = await page.text();
    assert.match(html, /<button/);
    assert.match(html, /\/api\/auth\/verify/);
    const again = await s.request(`/verify?token=${token}`);
    assert.equal(again.status, 200);
    const verify = await s.request('/api/auth/verify', { json: { token } });
    assert.equal(verify.status, 200, 'token still valid after the page was opened twice');
  });

  test('logout destroys the session server-side and clears the cookie', async () => {
    const { cookie } = await s.signIn('carol@example.com');
    const out = await s.request('/api/auth/logout', { method: 'POST', cookie, sameOrigin: true });
    assert.equal(out.status, 200);
    const cleared = out.headers.getSetCookie().find((c) => c.startsWith('vox_session='));
    assert.ok(cleared);
    assert.match(cleared, /vox_session=;|Max-Age=0|Expires=Thu, 01 Jan 1970/i);
    const session = await s.request('/api/auth/session', { cookie });
    assert.deepEqual(await session.json(), { user: null });
    const again = await s.request('/api/auth/logout', { method: 'POST', cookie, sameOrigin: true });
    assert.equal(again.status, 401, 'the old cookie value no longer works');
  });
  test('the mail carries the subject, the verify link and the lifetime the answer states', async () => {
    const n = s.mail.messages.length;
    const login = await s.request('/api/auth/login', { json: { email: 'wording@example.com' } });
    const { message } = (await login.json()) as { message: string };
    const minutes = /expires in (\d+) minutes/.exec(message)?.[1];
    assert.ok(minutes, message);
    const token = await s.mail.tokenFor('wording@example.com', n);
    const mail = s.mail.messages.slice(n).find((m) => m.to.includes('wording@example.com'));
    const raw = (mail?.raw ?? '').replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    assert.match(raw, /^Subject: Your Voxsmith sign-in link\r?$/m);
    assert.ok(raw.includes(`http://voxsmith.test/verify?token=${token}`), 'the link points at the verify page of PUBLIC_URL');
    assert.ok(raw.includes(`expires in ${minutes} minutes`), 'the mail and the answer state the same lifetime');
    assert.match(raw, /Content-Type: text\/html/i, 'an HTML part too');
  });

  test("logout closes the session's open WebSocket stream (1008)", async () => {
    const { cookie } = await s.signIn('stream-logout@example.com');
    const ws = new WebSocket(`${s.base.replace('http', 'ws')}/v1/ws/stream`, { headers: { cookie, origin: s.origin } });
    await once(ws, 'open');
    const closed = once(ws, 'close') as Promise<[number, Buffer]>;
    const out = await s.request('/api/auth/logout', { method: 'POST', cookie, sameOrigin: true });
    assert.equal(out.status, 200);
    // The bound only keeps a missing close from hanging the suite.
    const [code] = await Promise.race([closed, new Promise<[number]>((resolve) => setTimeout(() => resolve([-1]), 5000).unref())]);
    assert.equal(code, 1008);
  });
});

describe('magic-link sign-in: errors', () => {
  test('session without a cookie is a null user with 200', async () => {
    const res = await s.request('/api/auth/session');
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { user: null });
  });

  test('a bad cookie is just "not signed in"', async () => {
    const res = await s.request('/api/auth/session', { cookie: 'vox_session=nonsense' });
    assert.deepEqual(await res.json(), { user: null });
  });

  test('a token works once; two concurrent verifies: exactly one wins', async () => {
    const before = s.mail.messages.length;
    await s.request('/api/auth/login', { json: { email: 'race@example.com' } });
    const token = await s.mail.tokenFor('race@example.com', before);
    const results = await Promise.all(Array.from({ length: 5 }, () => s.request('/api/auth/verify', { json: { token } })));
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 400, 400, 400, 400]);
    const loser = results.find((r) => r.status === 400);
    const body = (await loser?.json()) as { error: string };
    assert.equal(typeof body.error, 'string');
  });

  test('a newer link voids the older one', async () => {
    const n = s.mail.messages.length;
    await s.request('/api/auth/login', { json: { email: 'twice@example.com' } });
    const first = await s.mail.tokenFor('twice@example.com', n);
    const m = s.mail.messages.length;
    await s.request('/api/auth/login', { json: { email: 'twice@example.com' } });
    const second = await s.mail.tokenFor('twice@example.com', m);
    assert.notEqual(first, second);
    assert.equal((await s.request('/api/auth/verify', { json: { token: first } })).status, 400);
    assert.equal((await s.request('/api/auth/verify', { json: { token: second } })).status, 200);
  });

  test('an expired token is refused with 410 link_expired (ask for a new one); a used one stays 400', async () => {
    const n = s.mail.messages.length;
    await s.request('/api/auth/login', { json: { email: 'late@example.com' } });
    const token = await s.mail.tokenFor('late@example.com', n);
    // Move the clock of this one link instead of waiting 15 minutes.
    await s.app.services.db
      .updateTable('magic_links')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('email', '=', 'late@example.com')
      .execute();
    const res = await s.request('/api/auth/verify', { json: { token } });
    assert.equal(res.status, 410);
    const body = (await res.json()) as { error: string; code: string; request_id: string };
    assert.equal(body.code, 'link_expired');
    assert.match(body.error, /expired/);
    assert.ok(body.request_id);

    const m = s.mail.messages.length;
    await s.request('/api/auth/login', { json: { email: 'used@example.com' } });
    const used = await s.mail.tokenFor('used@example.com', m);
    assert.equal((await s.request('/api/auth/verify', { json: { token: used } })).status, 200);
    const again = await s.request('/api/auth/verify', { json: { token: used } });
    assert.equal(again.status, 400);
    assert.equal(((await again.json()) as { code: string }).code, 'invalid_token');
    const never = await s.request('/api/auth/verify', { json: { token: 'never-issued' } });
    assert.equal(never.status, 400);
    assert.equal(((await never.json()) as { code: string }).code, 'invalid_token');
  });

  test('an idle session expires', async () => {
    const { cookie, user } = await s.signIn('idle@example.com');
    await s.app.services.db
      .updateTable('sessions')
      .set({ last_seen_at: new Date(Date.now() - 8 * 86_400_000).toISOString() })
      .where('user_id', '=', user.id)
      .execute();
    assert.deepEqual(await (await s.request('/api/auth/session', { cookie })).json(), { user: null });
  });

  test('login answers the same for known and unknown addresses', async () => {
    await s.signIn('known@example.com');
    const known = await (await s.request('/api/auth/login', { json: { email: 'known@example.com' } })).json();
    const unknown = await (await s.request('/api/auth/login', { json: { email: 'nobody@example.com' } })).json();
    assert.deepEqual(
      (known as { message: string }).message.replace('known', 'X'),
      (unknown as { message: string }).message.replace('nobody', 'X'),
    );
  });

  for (const [name, body] of [
    ['missing email', {}],
    ['not an address', { email: 'not-an-email' }],
    ['wrong type', { email: 42 }],
    ['too long', { email: `${'a'.repeat(300)}@example.com` }],
  ] as const) {
    test(`login with ${name} is a 400 {error}`, async () => {
      const res = await s.request('/api/auth/login', { json: body });
      assert.equal(res.status, 400);
      assert.equal(typeof ((await res.json()) as { error: unknown }).error, 'string');
    });
  }

  for (const [name, body] of [
    ['missing token', {}],
    ['unknown token', { token: 'A'.repeat(43) }],
    ['empty token', { token: '' }],
  ] as const) {
    test(`verify with ${name} is a 400 {error}`, async () => {
      const res = await s.request('/api/auth/verify', { json: body });
      assert.equal(res.status, 400);
      assert.equal(typeof ((await res.json()) as { error: unknown }).error, 'string');
    });
  }

  test('logout without a session is 401', async () => {
    const res = await s.request('/api/auth/logout', { method: 'POST', sameOrigin: true });
    assert.equal(res.status, 401);
    assert.equal(typeof ((await res.json()) as { error: unknown }).error, 'string');
  });
});

describe('magic-link sign-in: security', () => {
  test('logout from another origin is refused (CSRF)', async () => {
    const { cookie } = await s.signIn('csrf@example.com');
    const res = await s.request('/api/auth/logout', { method: 'POST', cookie, headers: { origin: 'https://evil.example' } });
    assert.equal(res.status, 403);
    const noOrigin = await s.request('/api/auth/logout', { method: 'POST', cookie });
    assert.equal(noOrigin.status, 403);
    const still = (await (await s.request('/api/auth/session', { cookie })).json()) as { user: { email: string } | null };
    assert.equal(still.user?.email, 'csrf@example.com', 'the refused logout left the session alone');
  });

  test('verify posted from another origin is refused (login CSRF)', async () => {
    const n = s.mail.messages.length;
    await s.request('/api/auth/login', { json: { email: 'lcsrf@example.com' } });
    const token = await s.mail.tokenFor('lcsrf@example.com', n);
    const res = await s.request('/api/auth/verify', { json: { token }, headers: { origin: 'https://evil.example' } });
    assert.equal(res.status, 403);
  });

  test('no token or session id is stored in the database or written to the log', async () => {
    const { cookie } = await s.signIn('secret@example.com');
    const token = (() => {
      const raw = s.mail.messages.at(-1)?.raw ?? '';
      return /token=([A-Za-z0-9_-]+)/.exec(raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='))?.[1] ?? '';
    })();
    assert.ok(token.length > 20);
    await s.request(`/verify?token=${token}`);
    const sessionId = decodeURIComponent(cookie.split('=')[1]);
    const dbText = await s.storedText();
    assert.ok(dbText.includes('secret@example.com'), 'the stored text holds the user');
    assert.ok(!dbText.includes(token), 'magic token in database');
    assert.ok(!dbText.includes(sessionId), 'session id in database');
    const log = s.logs.join('');
    assert.ok(log.includes('/verify'), 'the request was logged');
    assert.ok(!log.includes(token), 'magic token in log');
    assert.ok(!log.includes(sessionId), 'session id in log');
  });
});

describe('magic-link sign-in: mail server down', () => {
  test('login answers 503 mail_unavailable and logs why', async () => {
    // Port 1 on loopback: nothing listens, so the mail transport fails at once.
    const down = await startServer({ env: { SMTP_URL: 'smtp://127.0.0.1:1' } });
    try {
      const res = await down.request('/api/auth/login', { json: { email: 'nomail@example.com' } });
      assert.equal(res.status, 503);
      const body = (await res.json()) as { code: string; error: string };
      assert.equal(body.code, 'mail_unavailable');
      const line = down.logs.find((l) => l.includes('sending the sign-in mail failed'));
      assert.ok(line, 'the failure is logged');
      assert.match(line, /ECONNREFUSED|connect/i);
    } finally {
      await down.close();
    }
  });
});
