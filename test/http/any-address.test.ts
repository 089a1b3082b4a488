// Without PUBLIC_URL the dashboard works from any address the service has: a cookie-authenticated write whose
// Origin equals its own loopback or IP-literal Host is accepted (a DNS name is not: DNS rebinding), the sign-in
// mail links back to the address the person asked from (never to a forged Host), and a refusal names the
// variables that admit an origin. PUBLIC_URL and ALLOWED_ORIGINS keep working as before.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { useService } from '../helpers/fixture.ts';
import type { TestServer } from '../helpers/server.ts';

/** The last mail to `to`, quoted-printable undone. */
function lastMailTo(s: TestServer, to: string): string {
  const mail = [...s.mail.messages].reverse().find((m) => m.to.includes(to));
  return (mail?.raw ?? '').replace(/=\r?\n/g, '').replace(/=3D/g, '=');
}

interface Raw {
  status: number;
  json: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
}

/** An HTTP request with the Host and Origin a browser on that address sends (fetch does not let a test set Host). */
function raw(
  port: number,
  path: string,
  options: { method?: string; connectTo?: string; host?: string; origin?: string; cookie?: string; json?: unknown },
): Promise<Raw> {
  const body = options.json === undefined ? undefined : JSON.stringify(options.json);
  const connectTo = options.connectTo ?? '127.0.0.1';
  const headers: Record<string, string> = { host: options.host ?? `${connectTo}:${port}` };
  if (options.origin) headers.origin = options.origin;
  if (options.cookie) headers.cookie = options.cookie;
  if (body) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: connectTo, port, path, method: options.method ?? (body ? 'POST' : 'GET'), headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          json: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : {},
          headers: res.headers,
        });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('no PUBLIC_URL: the service answers on its own addresses', () => {
  // Listening on every address, as HOST's default 0.0.0.0 does: 127.0.0.1 and 127.0.0.2 are two addresses of it.

  const s = useService({ env: { PUBLIC_URL: '' }, listenHost: '0.0.0.0' });
  let port: number;
  before(async () => {
    port = Number(new URL(s.base).port);
  });

  /** Signs in the way the dashboard does from `address`: login and verify with that Origin; returns the cookie. */
  async function signInFrom(address: string, email: string): Promise<{ cookie: string; link: string }> {
    const origin = `http://${address}:${port}`;
    const before = s.mail.messages.length;
    const login = await raw(port, '/api/auth/login', { connectTo: address, origin, json: { email } });
    assert.equal(login.status, 200, JSON.stringify(login.json));
    const token = await s.mail.tokenFor(email, before);
    const link = /https?:\/\/\S+\/verify\?token=[A-Za-z0-9_-]+/.exec(lastMailTo(s, email))?.[0] ?? '';
    const verify = await raw(port, '/api/auth/verify', { connectTo: address, origin, json: { token } });
    assert.equal(verify.status, 200, JSON.stringify(verify.json));
    const cookie = String((verify.headers['set-cookie'] as string[])[0]).split(';')[0];
    return { cookie, link };
  }

  for (const address of ['127.0.0.1', '127.0.0.2']) {
    test(`from ${address}: sign-in, a key, and the mailed link points back at ${address}`, async () => {
      const { cookie, link } = await signInFrom(address, `from-${address.replaceAll('.', '-')}@example.com`);
      assert.ok(link.startsWith(`http://${address}:${port}/verify?token=`), link);
      const created = await raw(port, '/api/auth/api-keys', {
        connectTo: address,
        origin: `http://${address}:${port}`,
        cookie,
        json: { name: 'from here' },
      });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      // The page is served with a CSP whose stream address is this one.
      const page = await raw(port, '/', { connectTo: address });
      assert.match(
        String(page.headers['content-security-policy']),
        new RegExp(`connect-src 'self' ws://${address.replaceAll('.', '\\.')}:${port}`),
      );
    });
  }

  for (const address of ['127.0.0.1', '127.0.0.2']) {
    test(`/openapi.json fetched from ${address} names a server on ${address} (/docs' "Try it out" calls it)`, async () => {
      const res = await raw(port, '/openapi.json', { connectTo: address });
      assert.equal(res.status, 200);
      const servers = res.json.servers as Array<{ url: string }>;
      assert.ok(servers.length > 0);
      // A browser resolves a relative server against the document's own address.
      assert.equal(new URL(servers[0]!.url, `http://${address}:${port}/openapi.json`).origin, `http://${address}:${port}`);
    });
  }

  test('localhost is its own origin too', async () => {
    const { cookie } = await signInFrom('127.0.0.1', 'localhost@example.com');
    const created = await raw(port, '/api/auth/api-keys', {
      host: `localhost:${port}`,
      origin: `http://localhost:${port}`,
      cookie,
      json: { name: 'lh' },
    });
    assert.equal(created.status, 201);
  });

  test('another site, another address, or a DNS name (rebinding) is refused, and the refusal names the variables', async () => {
    const { cookie } = await signInFrom('127.0.0.1', 'refused@example.com');
    const cases = [
      { origin: 'http://evil.example', host: `127.0.0.1:${port}` },
      { origin: `http://127.0.0.2:${port}`, host: `127.0.0.1:${port}` },
      { origin: `http://127.0.0.1:${port + 1}`, host: `127.0.0.1:${port}` },
      { origin: `http://rebind.example:${port}`, host: `rebind.example:${port}` },
      { origin: 'null', host: `127.0.0.1:${port}` },
    ];
    for (const c of cases) {
      const res = await raw(port, '/api/auth/api-keys', { ...c, cookie, json: { name: 'x' } });
      assert.equal(res.status, 403, JSON.stringify(c));
      assert.equal(res.json.code, 'csrf');
      assert.match(String(res.json.error), /PUBLIC_URL/);
      assert.match(String(res.json.error), /ALLOWED_ORIGINS/);
    }
    const none = await raw(port, '/api/auth/api-keys', { cookie, json: { name: 'x' } });
    assert.equal(none.status, 403);
    assert.match(String(none.json.error), /no Origin header/);
  });

  test('a forged Host cannot send the sign-in link elsewhere: it falls back to the default address', async () => {
    const before = s.mail.messages.length;
    const res = await raw(port, '/api/auth/login', {
      host: `6.6.6.6:${port}`,
      origin: `http://6.6.6.6:${port}`,
      json: { email: 'victim@example.com' },
    });
    assert.equal(res.status, 200);
    await s.mail.tokenFor('victim@example.com', before);
    const mailText = lastMailTo(s, 'victim@example.com');
    assert.doesNotMatch(mailText, /6\.6\.6\.6/);
    // PUBLIC_URL's default, http://localhost:$PORT (PORT is the configured one: 8080 here, where the test server took a free port).
    assert.ok(mailText.includes(`${s.app.config.publicUrl.origin}/verify?token=`), mailText);
  });
});

describe('PUBLIC_URL set: only its origin, plus ALLOWED_ORIGINS', () => {
  const s = useService({ env: { ALLOWED_ORIGINS: 'http://localhost:5173, http://192.168.1.20:8080' } });
  let port: number;
  before(async () => {
    port = Number(new URL(s.base).port);
  });

  test('the own-address rule is off; ALLOWED_ORIGINS are accepted; links use PUBLIC_URL', async () => {
    const { cookie } = await s.signIn('public@example.com');
    const own = await raw(port, '/api/auth/api-keys', { origin: `http://127.0.0.1:${port}`, cookie, json: { name: 'x' } });
    assert.equal(own.status, 403);
    assert.match(String(own.json.error), /PUBLIC_URL's http:\/\/voxsmith\.test/);
    for (const origin of ['http://localhost:5173', 'http://192.168.1.20:8080', 'http://voxsmith.test']) {
      const ok = await raw(port, '/api/auth/api-keys', { origin, cookie, json: { name: 'y' } });
      assert.equal(ok.status, 201, origin);
    }
    const before = s.mail.messages.length;
    await raw(port, '/api/auth/login', { origin: 'http://localhost:5173', json: { email: 'link@example.com' } });
    await s.mail.tokenFor('link@example.com', before);
    assert.match(lastMailTo(s, 'link@example.com'), /http:\/\/voxsmith\.test\/verify\?token=/);
  });
});
