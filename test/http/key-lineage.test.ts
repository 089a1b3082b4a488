// A key minted by a key dies with it (issue 44, K1): a leaked key's look-alikes used to outlive its revocation and
// could go on revoking the owner's own keys. Through the real server, on the test store (SQLite, or PostgreSQL
// with VOXSMITH_TEST_STORE=postgres); two nodes: test/multinode/key-management.test.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useService } from '../helpers/fixture.ts';
import { StreamClient } from '../helpers/ws-client.ts';

const s = useService();

interface Created {
  key: string;
  id: string;
}
interface Listed {
  keys: Array<{ id: string; name: string; parent_key_id: string | null }>;
}

async function mint(credential: { bearer?: string; cookie?: string }, name: string): Promise<Created> {
  const res = await s.request('/api/auth/api-keys', { json: { name }, ...credential, sameOrigin: credential.cookie !== undefined });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as Created;
}

describe('key lineage', () => {
  test('revoking a key revokes the keys it minted and theirs, at once; the list shows who minted what', async () => {
    const { cookie } = await s.signIn('lineage@example.com');
    const root = await mint({ cookie }, 'root');
    const child = await mint({ bearer: root.key }, 'child');
    const grandchild = await mint({ bearer: child.key }, 'grandchild');
    const own = await mint({ cookie }, 'own');

    const list = (await (await s.request('/api/auth/api-keys', { cookie })).json()) as Listed;
    assert.deepEqual(
      list.keys.map((k) => [k.name, k.parent_key_id]),
      [
        ['root', null],
        ['child', root.id],
        ['grandchild', child.id],
        ['own', null],
      ],
    );

    const stream = await StreamClient.open(`${s.base.replace('http', 'ws')}/v1/ws/stream?token=${grandchild.key}`);
    const revoked = await s.request('/api/auth/api-keys', { method: 'DELETE', json: { key_id: root.id }, cookie, sameOrigin: true });
    assert.equal(revoked.status, 200);
    const body = (await revoked.json()) as { id: string; revoked: boolean; also_revoked: string[] };
    assert.equal(body.id, root.id);
    assert.deepEqual(body.also_revoked.sort(), [child.id, grandchild.id].sort());

    for (const k of [root, child, grandchild]) {
      assert.equal((await s.request('/v1/voices/flite-slt', { bearer: k.key })).status, 401, 'refused on the next request');
    }
    // A revoked child can no longer touch the owner's keys.
    const attack = await s.request('/api/auth/api-keys', { method: 'DELETE', json: { key_id: own.id }, bearer: child.key });
    assert.equal(attack.status, 401);
    assert.equal((await s.request('/api/auth/api-keys', { bearer: own.key })).status, 200);
    // The bound only keeps a missing close from hanging the suite.
    assert.equal((await stream.closedWithin(5000))?.code, 1008, "the grandchild's open stream closed");
  });
});
