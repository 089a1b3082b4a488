import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DASHBOARD_DIST, dashboardConfig } from '../../src/http/routes/dashboard.ts';
import { loadConfig } from '../../src/config.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

// How the service serves the built dashboard; needs `npm run build:web` (test:browser runs it first).
const built = existsSync(join(DASHBOARD_DIST, 'index.html'));

let s: TestServer;
before(async () => {
  if (built) s = await startServer();
});
after(async () => {
  if (built) await s.close();
});

function settingsOf(html: string): { mail: string; outbox: string | null; maxTextChars: number } {
  const meta = /<meta name="voxsmith-config" content="([^"]+)">/.exec(html);
  assert.ok(meta, 'settings meta tag');
  return JSON.parse(meta[1].replace(/&quot;/g, '"').replace(/&amp;/g, '&')) as {
    mail: string;
    outbox: string | null;
    maxTextChars: number;
  };
}

function assetPaths(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
}

describe('dashboard serving', { skip: built ? false : 'web/dist is not built (npm run build:web)' }, () => {
  test('/ is the app: HTML, never cached, strict CSP, public settings in a meta tag', async () => {
    const res = await s.request('/');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self'(;|$)/, 'no inline or eval script');
    assert.match(csp, /style-src 'self'(;|$)/);
    assert.match(csp, /media-src 'self' blob:/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe/);
    const html = await res.text();
    assert.match(html, /<div id="root">/);
    const settings = settingsOf(html);
    assert.equal(settings.mail, 'smtp', 'the test server mails through SMTP');
    assert.equal(settings.outbox, null);
    assert.equal(settings.maxTextChars, 10_000);
    assert.doesNotMatch(html, /<script>(?!<\/script>)/, 'no inline script');
  });

  test('hashed assets are served with a year of immutable cache; a missing one is a JSON 404', async () => {
    const html = await (await s.request('/')).text();
    const assets = assetPaths(html);
    assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), `assets in index.html: ${assets}`);
    for (const path of assets) {
      const res = await s.request(path);
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get('cache-control') ?? '', /max-age=31536000/);
      assert.match(res.headers.get('cache-control') ?? '', /immutable/);
      await res.arrayBuffer();
    }
    const onDisk = readdirSync(join(DASHBOARD_DIST, 'assets'));
    assert.ok(
      onDisk.every((f) => /-[A-Za-z0-9_-]{6,}\.(js|css|svg|png|woff2?)$/.test(f)),
      `every asset name carries a hash: ${onDisk}`,
    );
    const missing = await s.request('/assets/index-nope.js');
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { code: string }).code, 'route_not_found');
  });

  test('client routes fall back to the app; file-like and API paths do not', async () => {
    for (const path of ['/keys', '/voices', '/voices/some-voice', '/forge', '/usage', '/?voice=flite-slt']) {
      const res = await s.request(path);
      assert.equal(res.status, 200, path);
      assert.match(await res.text(), /<div id="root">/, path);
    }
    // A known API route asked with the wrong method is 405 with Allow, in the envelope, not the app either.
    const login = await s.request('/api/auth/login');
    assert.equal(login.status, 405);
    assert.equal(login.headers.get('allow'), 'POST');
    assert.match(login.headers.get('content-type') ?? '', /application\/json/);
    for (const path of ['/api/nope', '/api', '/v1/nope', '/v1', '/missing.js', '/a/b.png', '/index.html']) {
      const res = await s.request(path);
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get('content-type') ?? '', /application\/json/, path);
      const body = (await res.json()) as { error: string; request_id: string };
      assert.ok(body.error && body.request_id, path);
    }
    const post = await s.request('/keys', { method: 'POST', json: {} });
    assert.equal(post.status, 404, 'only GET falls back');
  });

  test('API routes keep precedence over the fallback', async () => {
    const session = await s.request('/api/auth/session');
    assert.deepEqual(await session.json(), { user: null });
    const voices = await s.request('/api/voices?language=de');
    assert.equal(voices.status, 200);
    assert.ok(((await voices.json()) as { voices: unknown[] }).voices.length > 0);
    const health = await s.request('/healthz');
    assert.equal(health.status, 200);
  });

  test('the favicon is served; /verify is still the sign-in page and does not consume the token', async () => {
    const icon = await s.request('/favicon.svg');
    assert.equal(icon.status, 200);
    assert.equal(icon.headers.get('content-type'), 'image/svg+xml');
    const before = s.mail.messages.length;
    await s.request('/api/auth/login', { json: { email: 'page@example.com' } });
    const token = await s.mail.tokenFor('page@example.com', before);
    const page = await s.request(`/verify?token=${token}`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /\/api\/auth\/verify/);
    const verify = await s.request('/api/auth/verify', { json: { token } });
    assert.equal(verify.status, 200);
  });

  test('HEAD / answers like GET without a body', async () => {
    const res = await s.request('/', { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    assert.equal((await res.arrayBuffer()).byteLength, 0);
  });

  test('without SMTP the app is told where sign-in links are written', async () => {
    const local = await startServer({ env: { SMTP_URL: '', MAX_TEXT_CHARS: '500' } });
    try {
      const settings = settingsOf(await (await local.request('/')).text());
      assert.equal(settings.mail, 'outbox');
      assert.equal(settings.outbox, `${join(local.dataDir, 'outbox')}/`, 'a data folder outside the working directory is shown in full');
      assert.equal(settings.maxTextChars, 500);
    } finally {
      await local.close();
    }
    const config = loadConfig({ DATA_DIR: './data' });
    assert.deepEqual(dashboardConfig(config), { mail: 'outbox', outbox: 'data/outbox/', maxTextChars: 10_000 }, 'inside it, relative');
  });
});
