import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_KEYS_PER_USER } from '../../src/accounts/api-keys.ts';
import { useService } from '../helpers/fixture.ts';

const s = useService();

interface KeyList {
  keys: Array<{ id: string; name: string; masked_key: string; created_at: string; last_used: string | null }>;
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe('API keys: happy path', () => {
  test('create returns the full key once; list shows it masked', async () => {
    const { cookie } = await s.signIn('keys@example.com');
    const res = await s.request('/api/auth/api-keys', { json: { name: 'laptop' }, cookie, sameOrigin: true });
    assert.equal(res.status, 201);
    const created = (await res.json()) as { key: string; id: string; name: string; created_at: string };
    assert.match(created.key, /^service_sk_[0-9A-Za-z]{50}$/);
    assert.equal(created.name, 'laptop');
    assert.match(created.created_at, ISO_UTC);

    const list = (await (await s.request('/api/auth/api-keys', { cookie })).json()) as KeyList;
    assert.equal(list.keys.length, 1);
    const [k] = list.keys;
    assert.equal(k.id, created.id);
    assert.equal(k.name, 'laptop');
    assert.equal(k.created_at, created.created_at);
    assert.equal(k.last_used, null);
    assert.ok(k.masked_key.startsWith('service_sk_'));
    assert.ok(k.masked_key.endsWith(created.key.slice(-4)));
    assert.ok(!k.masked_key.includes(created.key.slice(11, -4)), 'middle hidden');
    assert.ok(!JSON.stringify(list).includes(created.key));
  });

  test('a Bearer key may list keys (last_used is set at first use); creating and revoking: see key-scopes.test.ts', async () => {
    const { key, id } = await s.newKey('bearer@example.com');
    const list = (await (await s.request('/api/auth/api-keys', { bearer: key })).json()) as KeyList;
    const mine = list.keys.find((k) => k.id === id);
    assert.ok(mine?.last_used, 'using the key set last_used');
    assert.match(mine.last_used, ISO_UTC);
  });

  test('last_used is refreshed at most once a minute', async () => {
    const { key, id } = await s.newKey('lastused@example.com');
    await s.request('/api/auth/api-keys', { bearer: key });
    const first = await s.app.services.db.selectFrom('api_keys').select('last_used').where('id', '=', id).executeTakeFirstOrThrow();
    await s.request('/api/auth/api-keys', { bearer: key });
    const second = await s.app.services.db.selectFrom('api_keys').select('last_used').where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(second.last_used, first.last_used, 'not rewritten within the minute');
    const old = new Date(Date.now() - 61_000).toISOString();
    await s.app.services.db.updateTable('api_keys').set({ last_used: old }).where('id', '=', id).execute();
    await s.request('/api/auth/api-keys', { bearer: key });
    const third = await s.app.services.db.selectFrom('api_keys').select('last_used').where('id', '=', id).executeTakeFirstOrThrow();
    assert.ok(third.last_used && third.last_used > old);
  });

  test('revoke (JSON body or query string) stops the key at once', async () => {
    const { key, id, cookie } = await s.newKey('revoke@example.com');
    assert.equal((await s.request('/api/auth/api-keys', { bearer: key })).status, 200);
    const res = await s.request('/api/auth/api-keys', { method: 'DELETE', json: { key_id: id }, cookie, sameOrigin: true });
    assert.equal(res.status, 200);
    const after = await s.request('/api/auth/api-keys', { bearer: key });
    assert.equal(after.status, 401);
    const list = (await (await s.request('/api/auth/api-keys', { cookie })).json()) as KeyList;
    assert.ok(!list.keys.some((k) => k.id === id));

    const other = await s.request('/api/auth/api-keys', { json: { name: 'q' }, cookie, sameOrigin: true });
    const { id: id2, key: key2 } = (await other.json()) as { id: string; key: string };
    const byQuery = await s.request(`/api/auth/api-keys?key_id=${id2}`, { method: 'DELETE', cookie, sameOrigin: true });
    assert.equal(byQuery.status, 200);
    assert.equal((await s.request('/api/auth/api-keys', { bearer: key2 })).status, 401);
    const again = await s.request(`/api/auth/api-keys?key_id=${id2}`, { method: 'DELETE', cookie, sameOrigin: true });
    assert.equal(again.status, 404, 'revocation cannot be repeated or undone');
  });
});

describe('API keys: errors', () => {
  test('name missing, empty or too long is 400', async () => {
    const { cookie } = await s.signIn('names@example.com');
    for (const body of [{}, { name: '' }, { name: '   ' }, { name: 'x'.repeat(101) }, { name: 7 }]) {
      const res = await s.request('/api/auth/api-keys', { json: body, cookie, sameOrigin: true });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(typeof ((await res.json()) as { error: unknown }).error, 'string');
    }
  });

  test(`the cap of ${MAX_KEYS_PER_USER} live keys holds under concurrent creations; revoking frees a place`, async () => {
    const { cookie } = await s.signIn('cap@example.com');
    const create = (name: string) => s.request('/api/auth/api-keys', { json: { name }, cookie, sameOrigin: true });
    for (let i = 0; i < MAX_KEYS_PER_USER - 4; i++) assert.equal((await create(`k${i}`)).status, 201);
    const racing = await Promise.all(Array.from({ length: 12 }, (_, i) => create(`race${i}`)));
    assert.deepEqual(racing.map((r) => r.status).sort(), [...Array(4).fill(201), ...Array(8).fill(400)]);
    for (const res of racing.filter((r) => r.status === 400)) {
      const body = (await res.json()) as { error: string; code: string };
      assert.equal(body.code, 'validation');
      assert.match(body.error, new RegExp(`At most ${MAX_KEYS_PER_USER} active keys`));
    }
    const list = (await (await s.request('/api/auth/api-keys', { cookie })).json()) as KeyList;
    assert.equal(list.keys.length, MAX_KEYS_PER_USER);
    const revoked = await s.request('/api/auth/api-keys', {
      method: 'DELETE',
      json: { key_id: list.keys[0].id },
      cookie,
      sameOrigin: true,
    });
    assert.equal(revoked.status, 200);
    assert.equal((await create('after revoke')).status, 201);
    assert.equal((await create('one too many')).status, 400);
  });

  test('revoke without key_id is 400; unknown key id is 404', async () => {
    const { cookie } = await s.signIn('rev-err@example.com');
    assert.equal((await s.request('/api/auth/api-keys', { method: 'DELETE', cookie, sameOrigin: true })).status, 400);
    const res = await s.request('/api/auth/api-keys', { method: 'DELETE', json: { key_id: 'nope' }, cookie, sameOrigin: true });
    assert.equal(res.status, 404);
    assert.equal(typeof ((await res.json()) as { error: unknown }).error, 'string');
  });
});

describe('API keys: security', () => {
  test('missing, malformed, unknown and revoked keys get the same 401', async () => {
    const { key, id, cookie } = await s.newKey('same401@example.com');
    await s.request('/api/auth/api-keys', { method: 'DELETE', json: { key_id: id }, cookie, sameOrigin: true });
    const flipped = key.slice(0, 20) + (key[20] === 'a' ? 'b' : 'a') + key.slice(21);
    const fresh = await s.newKey('other401@example.com');
    const forged = fresh.key.slice(0, 23) + key.slice(23); // a real id with someone else's secret
    const cases: Array<[string, Record<string, string>]> = [
      ['missing', {}],
      ['not bearer', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
      ['malformed', { authorization: 'Bearer service_sk_short' }],
      ['bad checksum', { authorization: `Bearer ${flipped}` }],
      ['forged secret', { authorization: `Bearer ${forged}` }],
      ['revoked', { authorization: `Bearer ${key}` }],
    ];
    for (const [name, headers] of cases) {
      const res = await s.request('/api/auth/api-keys', { headers });
      assert.equal(res.status, 401, name);
      const body = (await res.json()) as { error: string };
      assert.equal(typeof body.error, 'string', name);
    }
  });

  test("users cannot see or revoke each other's keys", async () => {
    const a = await s.newKey('iso-a@example.com');
    const b = await s.newKey('iso-b@example.com');
    const listB = (await (await s.request('/api/auth/api-keys', { bearer: b.key })).json()) as KeyList;
    assert.ok(!listB.keys.some((k) => k.id === a.id));
    const res = await s.request('/api/auth/api-keys', { method: 'DELETE', json: { key_id: a.id }, cookie: b.cookie, sameOrigin: true });
    assert.equal(res.status, 404);
    assert.equal((await s.request('/api/auth/api-keys', { bearer: a.key })).status, 200, 'a still works');
  });

  test('cookie-authenticated key creation needs our Origin (CSRF)', async () => {
    const { cookie } = await s.signIn('csrf-keys@example.com');
    const evil = await s.request('/api/auth/api-keys', { json: { name: 'x' }, cookie, headers: { origin: 'https://evil.example' } });
    assert.equal(evil.status, 403);
    const none = await s.request('/api/auth/api-keys', { json: { name: 'x' }, cookie });
    assert.equal(none.status, 403);
    const list = (await (await s.request('/api/auth/api-keys', { cookie })).json()) as KeyList;
    assert.equal(list.keys.length, 0);
  });

  test('the key never reaches the database files or the log', async () => {
    const { key, id } = await s.newKey('nokey@example.com');
    await s.request('/api/auth/api-keys', { bearer: key });
    await s.request(`/api/auth/api-keys?token=${key}`, { bearer: key });
    const secret = key.slice(23, 55);
    const dbText = await s.storedText();
    assert.ok(dbText.includes(id), 'the stored text holds the key row');
    assert.ok(!dbText.includes(secret));
    assert.ok(!s.logs.join('').includes(secret));
  });
});
