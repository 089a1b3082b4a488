// Key management with a Bearer key (what a deploy script does without a browser), bounded by scopes: what a key may do on every door, what it
// may mint, and revocation by `key_id` or `id` in the body or the query string.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { KEY_SCOPES } from '../../src/schemas/api-keys.ts';
import { startServer } from '../helpers/server.ts';
import { useService } from '../helpers/fixture.ts';
import { dropSchema, randomSchema, testStore } from '../helpers/stores.ts';
import { StreamClient } from '../helpers/ws-client.ts';

const s = useService();

interface Created {
  key: string;
  id: string;
  name: string;
  created_at: string;
  scopes: string[];
}
interface Listed {
  keys: Array<{ id: string; name: string; masked_key: string; scopes: string[] }>;
}

async function create(credential: { bearer?: string; cookie?: string }, body: Record<string, unknown>): Promise<Response> {
  return s.request('/api/auth/api-keys', { json: body, ...credential, sameOrigin: credential.cookie !== undefined });
}

async function created(res: Response): Promise<Created> {
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as Created;
}

async function code(res: Response): Promise<string> {
  return ((await res.json()) as { code: string }).code;
}

const wsBase = (): string => s.base.replace('http', 'ws');

/** The HTTP answer to a WebSocket upgrade that is refused. */
function refusedUpgrade(url: string): Promise<{ status: number; code: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on('open', () => reject(new Error('upgraded')));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, code: (JSON.parse(body) as { code: string }).code }));
    });
    ws.on('error', () => undefined);
  });
}

describe('keys with a Bearer key (session, then key, then keys)', () => {
  test('a session creates a key; that key creates, lists and revokes keys, by key_id or id, in the body or the query', async () => {
    const { cookie } = await s.signIn('spec-flow@example.com');
    const first = await created(await create({ cookie }, { name: 'first' }));
    assert.deepEqual(first.scopes, [...KEY_SCOPES], 'all four scopes by default');
    const bearer = first.key;

    const made: Created[] = [];
    for (const name of ['by-body', 'by-query', 'by-body-id', 'by-query-id']) made.push(await created(await create({ bearer }, { name })));
    for (const k of made) assert.deepEqual(k.scopes, [...KEY_SCOPES]);
    for (const k of made) assert.equal((await s.request('/v1/voices', { bearer: k.key })).status, 200, 'each new key works');

    const listRes = await s.request('/api/auth/api-keys', { bearer });
    assert.equal(listRes.status, 200);
    const list = (await listRes.json()) as Listed;
    assert.deepEqual(
      list.keys.map((k) => k.name),
      ['first', 'by-body', 'by-query', 'by-body-id', 'by-query-id'],
    );
    for (const k of list.keys) assert.deepEqual(k.scopes, [...KEY_SCOPES]);

    const [byBody, byQuery, byBodyId, byQueryId] = made;
    const revokes = [
      s.request('/api/auth/api-keys', { method: 'DELETE', json: { key_id: byBody.id }, bearer }),
      s.request(`/api/auth/api-keys?key_id=${byQuery.id}`, { method: 'DELETE', bearer }),
      s.request('/api/auth/api-keys', { method: 'DELETE', json: { id: byBodyId.id }, bearer }),
      s.request(`/api/auth/api-keys?id=${byQueryId.id}`, { method: 'DELETE', bearer }),
    ];
    for (const [i, res] of (await Promise.all(revokes)).entries()) {
      assert.equal(res.status, 200, `revoke ${i}`);
      assert.deepEqual(await res.json(), { id: made[i].id, revoked: true, also_revoked: [] });
    }
    for (const k of made)
      assert.equal((await s.request('/api/auth/api-keys', { bearer: k.key })).status, 401, `${k.name} is revoked at once`);
    const after = (await (await s.request('/api/auth/api-keys', { bearer })).json()) as Listed;
    assert.deepEqual(
      after.keys.map((k) => k.id),
      [first.id],
    );

    // Revoked is revoked: again is 404; neither key_id nor id is 400.
    assert.equal((await s.request(`/api/auth/api-keys?key_id=${byBody.id}`, { method: 'DELETE', bearer })).status, 404);
    const none = await s.request('/api/auth/api-keys', { method: 'DELETE', bearer });
    assert.equal(none.status, 400);
    assert.match(((await none.json()) as { error: string }).error, /key_id/);
    // A key may revoke itself; then it is gone.
    assert.equal((await s.request('/api/auth/api-keys', { method: 'DELETE', json: { key_id: first.id }, bearer })).status, 200);
    assert.equal((await s.request('/api/auth/api-keys', { bearer })).status, 401);
  });

  test('a Bearer key cannot see or revoke another account’s keys', async () => {
    const a = await s.newKey('scope-iso-a@example.com');
    const b = await s.newKey('scope-iso-b@example.com');
    const res = await s.request(`/api/auth/api-keys?key_id=${a.id}`, { method: 'DELETE', bearer: b.key });
    assert.equal(res.status, 404);
    assert.equal((await s.request('/api/auth/api-keys', { bearer: a.key })).status, 200);
  });
});

describe('scopes', () => {
  test('unknown, empty and mistyped scopes are 400', async () => {
    const { cookie } = await s.signIn('scope-400@example.com');
    for (const scopes of [['speech', 'admin'], [], 'speech', [7], ['Speech'], ['constructor'], ['__proto__']]) {
      const res = await create({ cookie }, { name: 'bad', scopes });
      assert.equal(res.status, 400, JSON.stringify(scopes));
      const body = (await res.json()) as { code: string; error: string };
      assert.equal(body.code, 'validation');
      assert.match(body.error, /scopes/);
    }
    const list = (await (await s.request('/api/auth/api-keys', { cookie })).json()) as Listed;
    assert.equal(list.keys.length, 0, 'nothing was created');
  });

  test('a speech-only key speaks on every door and is refused everything else with 403 insufficient_scope', async () => {
    const { cookie } = await s.signIn('speech-only@example.com');
    const speaker = await created(await create({ cookie }, { name: 'kiosk', scopes: ['speech'] }));
    assert.deepEqual(speaker.scopes, ['speech']);
    const listed = (await (await s.request('/api/auth/api-keys', { cookie })).json()) as Listed;
    assert.deepEqual(listed.keys.find((k) => k.id === speaker.id)?.scopes, ['speech'], 'scopes show in the list');
    const bearer = speaker.key;

    // Speaks: /v1/speak, OpenAI, ElevenLabs (Bearer and xi-api-key), phonemize, the WebSocket.
    const speak = await s.request('/v1/speak', { json: { text: 'Hello there.', voice_id: 'flite-slt', format: 'pcm' }, bearer });
    assert.equal(speak.status, 200);
    assert.ok((await speak.arrayBuffer()).byteLength > 24_000, 'real audio');
    const openai = await s.request('/v1/audio/speech', {
      json: { model: 'tts-1', voice: 'alloy', input: 'Hello.', response_format: 'pcm' },
      bearer,
    });
    assert.equal(openai.status, 200);
    assert.ok((await openai.arrayBuffer()).byteLength > 10_000);
    const eleven = await s.request('/v1/text-to-speech/flite-slt?output_format=pcm_24000', {
      json: { text: 'Hello.' },
      headers: { 'xi-api-key': bearer },
    });
    assert.equal(eleven.status, 200);
    assert.ok((await eleven.arrayBuffer()).byteLength > 10_000);
    assert.equal((await s.request('/v1/phonemize', { json: { text: 'Hello.', voice_id: 'flite-slt' }, bearer })).status, 200);
    const stream = await StreamClient.open(`${wsBase()}/v1/ws/stream?token=${bearer}`, { timeoutMs: 30_000 });
    stream.send({ type: 'synthesize', text: 'Hello over the stream.', voice_id: 'flite-slt' });
    const done = await stream.until((m) => m.type === 'done');
    assert.ok((done.samples ?? 0) > 10_000);
    stream.close();

    // Everything else: keys (create, list, revoke, breeding a key), voices, lexicons, usage.
    const refused: Array<[string, Promise<Response>]> = [
      ['create a key', create({ bearer }, { name: 'more', scopes: ['speech'] })],
      ['list keys', s.request('/api/auth/api-keys', { bearer })],
      ['revoke a key', s.request(`/api/auth/api-keys?key_id=${speaker.id}`, { method: 'DELETE', bearer })],
      [
        'breed',
        s.request('/v1/forge/breed', { json: { parent_a: 'flite-slt', parent_b: 'flite-awb', name: 'kid', mutation_rate: 0.1 }, bearer }),
      ],
      ['clone', s.request('/v1/forge/clone', { body: new FormData(), bearer })],
      ['delete a voice', s.request('/api/voices/clone-nothing', { method: 'DELETE', bearer })],
      ['list lexicons', s.request('/api/lexicons', { bearer })],
      ['create a lexicon', s.request('/api/lexicons', { json: { name: 'x', rules: [{ grapheme: 'WHO', alias: 'who' }] }, bearer })],
      ['usage', s.request('/api/usage', { bearer })],
    ];
    for (const [what, pending] of refused) {
      const res = await pending;
      assert.equal(res.status, 403, what);
      const body = (await res.json()) as { code: string; error: string };
      assert.equal(body.code, 'insufficient_scope', what);
      assert.match(body.error, /scope/, what);
    }
    const still = (await (await s.request('/api/auth/api-keys', { cookie })).json()) as Listed;
    assert.deepEqual(
      still.keys.map((k) => k.id),
      [speaker.id],
      'nothing minted, nothing revoked',
    );
  });

  test('a key without the speech scope is refused speech on every door, the WebSocket before the upgrade', async () => {
    const { cookie } = await s.signIn('no-speech@example.com');
    const { key: bearer } = await created(await create({ cookie }, { name: 'admin', scopes: ['keys', 'usage'] }));
    const doors: Array<[string, Promise<Response>]> = [
      ['speak', s.request('/v1/speak', { json: { text: 'Hi.' }, bearer })],
      ['with-timestamps', s.request('/v1/speak/with-timestamps', { json: { text: 'Hi.' }, bearer })],
      ['openai', s.request('/v1/audio/speech', { json: { model: 'tts-1', voice: 'alloy', input: 'Hi.' }, bearer })],
      ['elevenlabs', s.request('/v1/text-to-speech/flite-slt', { json: { text: 'Hi.' }, headers: { 'xi-api-key': bearer } })],
      ['elevenlabs stream', s.request('/v1/text-to-speech/flite-slt/stream', { json: { text: 'Hi.' }, bearer })],
      ['phonemize', s.request('/v1/phonemize', { json: { text: 'Hi.' }, bearer })],
    ];
    for (const [door, pending] of doors) {
      const res = await pending;
      assert.equal(res.status, 403, door);
      assert.equal(await code(res), 'insufficient_scope', door);
    }
    assert.deepEqual(await refusedUpgrade(`${wsBase()}/v1/ws/stream?token=${bearer}`), { status: 403, code: 'insufficient_scope' });
    // What it does hold still works.
    assert.equal((await s.request('/api/usage', { bearer })).status, 200);
    assert.equal((await s.request('/api/auth/api-keys', { bearer })).status, 200);
  });

  test('a key creates only keys within its own scopes (no breeding a wider key)', async () => {
    const { cookie } = await s.signIn('subset@example.com');
    const { key: bearer, id } = await created(await create({ cookie }, { name: 'ops', scopes: ['speech', 'keys'] }));
    const narrower = await created(await create({ bearer }, { name: 'speaker', scopes: ['speech'] }));
    assert.deepEqual(narrower.scopes, ['speech']);
    const same = await created(await create({ bearer }, { name: 'same', scopes: ['keys', 'speech', 'keys'] }));
    assert.deepEqual(same.scopes, ['speech', 'keys'], 'each scope once, in the one order');
    for (const scopes of [['speech', 'voices'], ['usage'], undefined]) {
      const res = await create({ bearer }, { name: 'wider', ...(scopes ? { scopes } : {}) });
      assert.equal(res.status, 403, JSON.stringify(scopes));
      const body = (await res.json()) as { code: string; error: string };
      assert.equal(body.code, 'insufficient_scope');
      assert.match(body.error, /lacks (voices|usage)/);
    }
    // A key it minted cannot mint either (no keys scope), and revoking the parent leaves no wider key behind.
    const grandchild = await create({ bearer: narrower.key }, { name: 'grandchild', scopes: ['speech'] });
    assert.equal(grandchild.status, 403);
    const list = (await (await s.request('/api/auth/api-keys', { cookie })).json()) as Listed;
    assert.deepEqual(
      list.keys.map((k) => [k.name, k.scopes.join(' ')]),
      [
        ['ops', 'speech keys'],
        ['speaker', 'speech'],
        ['same', 'speech keys'],
      ],
    );
    assert.equal((await s.request('/api/auth/api-keys', { method: 'DELETE', json: { key_id: id }, cookie, sameOrigin: true })).status, 200);
  });

  test('a session may give any scopes, and the OpenAPI document names the scope of each operation', async () => {
    const { cookie } = await s.signIn('session-scopes@example.com');
    const k = await created(await create({ cookie }, { name: 'voices', scopes: ['voices', 'usage'] }));
    assert.deepEqual(k.scopes, ['voices', 'usage']);
    const doc = (await (await s.request('/openapi.json')).json()) as {
      paths: Record<
        string,
        Record<string, { security?: Array<Record<string, string[]>>; responses: Record<string, unknown>; 'x-required-scope'?: string }>
      >;
    };
    const expected: Array<[string, string, string]> = [
      ['/api/auth/api-keys', 'post', 'keys'],
      ['/api/auth/api-keys', 'get', 'keys'],
      ['/api/auth/api-keys', 'delete', 'keys'],
      ['/v1/speak', 'post', 'speech'],
      ['/v1/audio/speech', 'post', 'speech'],
      ['/v1/forge/breed', 'post', 'voices'],
      ['/api/lexicons', 'get', 'voices'],
      ['/api/usage', 'get', 'usage'],
    ];
    for (const [path, method, scope] of expected) {
      const op = doc.paths[path][method];
      assert.equal(op['x-required-scope'], scope, `${method} ${path}`);
      assert.ok(
        op.security?.some((r) => r.apiKey?.includes(scope)),
        `${method} ${path}: security names ${scope}`,
      );
      assert.ok(op.responses['403'], `${method} ${path}: 403 documented`);
    }
  });
});

describe('Wyoming’s key', () => {
  test('a key without the speech scope does not start the Wyoming server', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'voxsmith-scope-wyoming-'));
    // Both runs must see the same database (on PostgreSQL: the same schema).
    const pgSchema = testStore === 'postgres' ? randomSchema('scopewy') : undefined;
    try {
      const first = await startServer({ dataDir, pgSchema });
      const { cookie } = await first.signIn('wyoming-scope@example.com');
      const res = await first.request('/api/auth/api-keys', { json: { name: 'ha', scopes: ['usage'] }, cookie, sameOrigin: true });
      const { key } = (await res.json()) as Created;
      await first.close();
      await assert.rejects(startServer({ dataDir, pgSchema, env: { WYOMING_PORT: '0', WYOMING_API_KEY: key } }), /speech/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      if (pgSchema) await dropSchema(pgSchema);
    }
  });
});
