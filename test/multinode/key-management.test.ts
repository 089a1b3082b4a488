// Key management with a Bearer key on two real nodes sharing PostgreSQL and Redis: the whole flow (a session
// creates a key; the key creates, lists and revokes keys, in the body and in the query) with each step on the
// other node than the one before, and a revocation on one node refusing the key on the other at once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { signedInKey, type ServiceProcess } from '../helpers/process.ts';
import type { SmtpSink } from '../helpers/smtp-sink.ts';
import { StreamClient } from '../helpers/ws-client.ts';
import { callNode, NODES_ORIGIN, startTwoNodes, type TwoNodes } from '../helpers/two-nodes.ts';

const ORIGIN = NODES_ORIGIN;
let nodes: TwoNodes;
let a: ServiceProcess;
let b: ServiceProcess;
let mail: SmtpSink;

before(async () => {
  nodes = await startTwoNodes('mnkeys', {
    LOGIN_RATE_LIMIT_PER_MINUTE: '1000',
    LOGIN_ADDRESS_LIMIT_PER_HOUR: '1000',
  });
  ({ a, b, mail } = nodes);
});

after(async () => {
  await nodes?.stop();
});

const call = callNode;

interface Created {
  key: string;
  id: string;
  scopes: string[];
}

async function createKey(
  node: ServiceProcess,
  credential: { cookie?: string; bearer?: string },
  body: Record<string, unknown>,
): Promise<Created> {
  const res = await call(node, '/api/auth/api-keys', { json: body, ...credential });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as Created;
}

describe('key management across two nodes (PostgreSQL + Redis)', () => {
  test('session on A creates a key; the key creates on B, lists on A, revokes on B (body and query, key_id and id)', async () => {
    const email = 'two-node-keys@example.com';
    const sent = mail.messages.length;
    assert.equal((await call(a, '/api/auth/login', { json: { email } })).status, 200);
    const verify = await call(b, '/api/auth/verify', { json: { token: await mail.tokenFor(email, sent) } });
    assert.equal(verify.status, 200);
    const cookie = verify.headers.getSetCookie()[0].split(';')[0];

    const root = await createKey(a, { cookie }, { name: 'root' });
    assert.deepEqual(root.scopes, ['speech', 'voices', 'keys', 'usage']);
    const bearer = root.key;
    const children = [
      await createKey(b, { bearer }, { name: 'c1' }),
      await createKey(a, { bearer }, { name: 'c2' }),
      await createKey(b, { bearer }, { name: 'c3', scopes: ['speech'] }),
      await createKey(a, { bearer }, { name: 'c4' }),
    ];
    const list = (await (await call(a, '/api/auth/api-keys', { bearer })).json()) as {
      keys: Array<{ id: string; name: string; scopes: string[] }>;
    };
    assert.deepEqual(
      list.keys.map((k) => k.name),
      ['root', 'c1', 'c2', 'c3', 'c4'],
    );
    assert.deepEqual(list.keys.find((k) => k.name === 'c3')?.scopes, ['speech']);

    // Each child works on both nodes, then is revoked on the node it was not made on, four ways.
    for (const c of children) for (const node of [a, b]) assert.equal((await call(node, '/v1/voices', { bearer: c.key })).status, 200);
    const [c1, c2, c3, c4] = children;
    const revocations: Array<[ServiceProcess, string, unknown]> = [
      [a, '/api/auth/api-keys', { key_id: c1.id }],
      [b, `/api/auth/api-keys?key_id=${c2.id}`, undefined],
      [a, '/api/auth/api-keys', { id: c3.id }],
      [b, `/api/auth/api-keys?id=${c4.id}`, undefined],
    ];
    for (const [node, path, json] of revocations) {
      const res = await call(node, path, { method: 'DELETE', bearer, ...(json === undefined ? {} : { json }) });
      assert.equal(res.status, 200, path);
    }
    for (const c of children) {
      for (const node of [a, b])
        assert.equal((await call(node, '/api/auth/api-keys', { bearer: c.key })).status, 401, 'revoked on every node at once');
    }
    // The speech-only child could never have minted anything: checked on the other node than its maker.
    const left = (await (await call(b, '/api/auth/api-keys', { cookie })).json()) as { keys: Array<{ name: string }> };
    assert.deepEqual(
      left.keys.map((k) => k.name),
      ['root'],
    );
  });

  test('a speech-only key is refused key management on both nodes, and cannot mint a wider key', async () => {
    const speaker = await signedInKey(b.base, mail, 'two-node-scope@example.com', ORIGIN, { name: 'speaker', scopes: ['speech'] });
    for (const node of [a, b]) {
      const create = await call(node, '/api/auth/api-keys', { json: { name: 'wider', scopes: ['speech', 'keys'] }, bearer: speaker.key });
      assert.equal(create.status, 403);
      assert.equal(((await create.json()) as { code: string }).code, 'insufficient_scope');
      assert.equal((await call(node, '/api/auth/api-keys', { bearer: speaker.key })).status, 403);
      const speak = await call(node, '/v1/speak', { json: { text: 'Hello.', voice_id: 'flite-slt', format: 'wav' }, bearer: speaker.key });
      assert.equal(speak.status, 200);
      assert.ok((await speak.arrayBuffer()).byteLength > 10_000);
    }
  });

  test("revoking a key on A refuses its child and grandchild on both nodes at once, and closes the grandchild's stream on B", async () => {
    const email = 'two-node-lineage@example.com';
    const sent = mail.messages.length;
    assert.equal((await call(a, '/api/auth/login', { json: { email } })).status, 200);
    const verify = await call(b, '/api/auth/verify', { json: { token: await mail.tokenFor(email, sent) } });
    const cookie = verify.headers.getSetCookie()[0].split(';')[0];
    const root = await createKey(a, { cookie }, { name: 'leaked' });
    const child = await createKey(b, { bearer: root.key }, { name: 'look-alike' });
    const grandchild = await createKey(a, { bearer: child.key }, { name: 'look-alike 2' });
    const own = await createKey(b, { cookie }, { name: 'own' });
    const list = (await (await call(b, '/api/auth/api-keys', { cookie })).json()) as {
      keys: Array<{ name: string; parent_key_id: string | null }>;
    };
    assert.deepEqual(
      list.keys.map((k) => k.parent_key_id),
      [null, root.id, child.id, null],
    );
    const stream = await StreamClient.open(`${b.base.replace('http', 'ws')}/v1/ws/stream?token=${grandchild.key}`);

    const revokedAt = performance.now();
    assert.equal((await call(a, '/api/auth/api-keys', { method: 'DELETE', json: { key_id: root.id }, cookie })).status, 200);
    for (const node of [b, a]) {
      for (const k of [grandchild, child]) assert.equal((await call(node, '/v1/voices', { bearer: k.key })).status, 401, 'refused at once');
    }
    const refusedIn = performance.now() - revokedAt;
    // The bound only keeps a missing close from hanging the suite.
    const closed = await stream.closedWithin(10_000);
    const closedIn = performance.now() - revokedAt;
    assert.equal(closed?.code, 1008);
    console.log(
      `lineage: children refused on both nodes ${refusedIn.toFixed(0)} ms after the revocation; stream on B closed in ${closedIn.toFixed(0)} ms`,
    );
    assert.equal((await call(a, '/api/auth/api-keys', { method: 'DELETE', json: { key_id: own.id }, bearer: child.key })).status, 401);
    assert.equal((await call(a, '/v1/voices', { bearer: own.key })).status, 200, "the owner's own key lives on");
  });
});
