import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiKeyService, MAX_KEYS_PER_USER } from '../../src/accounts/api-keys.ts';
import { MagicLinkService } from '../../src/accounts/magic-links.ts';
import { SessionService } from '../../src/accounts/sessions.ts';
import { UsageService } from '../../src/accounts/usage.ts';
import { UserService } from '../../src/accounts/users.ts';
import { KEY_SCOPES } from '../../src/schemas/api-keys.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import type { SharedEvent } from '../../src/store/shared-state/shared-state.ts';
import { dropSchema, randomSchema, TEST_PG_URL } from '../helpers/stores.ts';

// Every repository query, and the writes that must be atomic under concurrency, on both dialects.

/** Stands in for the shared state's broadcast channel: records what the services announce. */
function recorder(): { events: SharedEvent[]; publish(event: SharedEvent): Promise<void> } {
  const events: SharedEvent[] = [];
  return { events, publish: async (event) => void events.push(event) };
}

// Each test's store is closed as soon as the test ends: eight PostgreSQL pools of ten left open until the
// file ends would hold most of the server's 100 connections while other test files need some too.
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const dialects: Array<[string, () => Promise<Store>]> = [
  [
    'sqlite',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'voxsmith-repo-'));
      const store = await openStore({ dataDir: dir, databaseUrl: null });
      cleanups.push(async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      });
      return store;
    },
  ],
  [
    'postgres',
    async () => {
      const schema = randomSchema('repo');
      const store = await openStore({ dataDir: '/nonexistent', databaseUrl: TEST_PG_URL, pgSchema: schema });
      cleanups.push(async () => {
        await store.close();
        await dropSchema(schema);
      });
      return store;
    },
  ],
];

for (const [name, make] of dialects) {
  describe(`repositories on ${name}`, () => {
    test('users: two first sign-ins racing create one user', async () => {
      const { db } = await make();
      const users = new UserService(db);
      const results = await Promise.all(Array.from({ length: 10 }, () => users.findOrCreate('race@example.com')));
      assert.equal(new Set(results.map((u) => u.id)).size, 1);
      assert.deepEqual(await users.findById(results[0].id), results[0]);
      assert.equal(await users.findById('usr_none'), null);
    });

    test('magic links: of 10 concurrent uses of one token exactly one wins; newer link voids older; prune', async () => {
      const { db } = await make();
      const links = new MagicLinkService(db, 60_000);
      const token = await links.issue('link@example.com');
      const results = await Promise.all(Array.from({ length: 10 }, () => links.consume(token)));
      assert.deepEqual(
        results.filter((r) => r !== null),
        ['link@example.com'],
      );
      const older = await links.issue('two@example.com');
      const newer = await links.issue('two@example.com');
      assert.equal(await links.consume(older), null);
      assert.equal(await links.consume(newer), 'two@example.com');
      await db
        .updateTable('magic_links')
        .set({ expires_at: new Date(Date.now() - 1_000).toISOString() })
        .execute();
      await links.prune();
      assert.equal((await db.selectFrom('magic_links').select('token_hash').execute()).length, 0);
    });

    test('magic links: of 10 concurrent logins for one address exactly one link stays valid', async () => {
      const { db } = await make();
      const links = new MagicLinkService(db, 60_000);
      const tokens = await Promise.all(Array.from({ length: 10 }, () => links.issue('racer@example.com')));
      const results = await Promise.all(tokens.map((t) => links.consume(t)));
      assert.deepEqual(
        results.filter((r) => r !== null),
        ['racer@example.com'],
      );
    });

    test('API keys: create, authenticate, list; of 10 concurrent revokes exactly one succeeds', async () => {
      const { db, dialect } = await make();
      const user = await new UserService(db).findOrCreate('keys@example.com');
      const broadcast = recorder();
      const keys = new ApiKeyService(db, dialect, broadcast);
      const owner = { userId: user.id, scopes: KEY_SCOPES, keyId: null };
      const created = await keys.create(owner, 'laptop');
      assert.deepEqual(await keys.authenticate(created.key), { keyId: created.id, userId: user.id, scopes: [...KEY_SCOPES] });
      const narrow = await keys.create(owner, 'speaker', ['speech', 'speech']);
      assert.deepEqual(narrow.scopes, ['speech'], 'scopes are stored once each');
      assert.deepEqual((await keys.authenticate(narrow.key))?.scopes, ['speech']);
      await assert.rejects(keys.create({ userId: user.id, scopes: ['speech'], keyId: null }, 'wider', ['speech', 'keys']), /lacks keys/);
      assert.deepEqual(await keys.revoke(user.id, narrow.id), { id: narrow.id, also_revoked: [] });
      broadcast.events.length = 0;
      const [listed] = await keys.list(user.id);
      assert.equal(listed.id, created.id);
      assert.ok(listed.last_used, 'authenticate stamped last_used');
      assert.equal(await keys.isActive(created.id), true);
      const revokes = await Promise.all(Array.from({ length: 10 }, () => keys.revoke(user.id, created.id)));
      assert.equal(revokes.filter(Boolean).length, 1);
      assert.deepEqual(
        broadcast.events,
        [{ type: 'key-revoked', keyId: created.id }],
        'the one revocation that happened is broadcast once',
      );
      assert.equal(await keys.authenticate(created.key), null);
      assert.equal(await keys.isActive(created.id), false);
      assert.deepEqual(await keys.list(user.id), []);
    });

    test('API keys: revoking a key revokes every key it minted, down the line, and a key revoked while minting leaves no child', async () => {
      const { db, dialect } = await make();
      const user = await new UserService(db).findOrCreate('line@example.com');
      const broadcast = recorder();
      const keys = new ApiKeyService(db, dialect, broadcast);
      const root = await keys.create({ userId: user.id, scopes: KEY_SCOPES, keyId: null }, 'root');
      const as = (k: { id: string }) => ({ userId: user.id, scopes: KEY_SCOPES, keyId: k.id });
      const child = await keys.create(as(root), 'child');
      const grandchild = await keys.create(as(child), 'grandchild');
      const sibling = await keys.create(as(root), 'sibling');
      await keys.create({ userId: user.id, scopes: KEY_SCOPES, keyId: null }, 'other');
      const parents = Object.fromEntries((await keys.list(user.id)).map((k) => [k.name, k.parent_key_id]));
      assert.deepEqual(parents, { root: null, child: root.id, grandchild: child.id, sibling: root.id, other: null });

      const gone = await keys.revoke(user.id, child.id);
      assert.deepEqual(gone, { id: child.id, also_revoked: [grandchild.id] });
      assert.equal(await keys.authenticate(grandchild.key), null);
      assert.ok(await keys.authenticate(root.key), 'the parent of a revoked key lives on');
      broadcast.events.length = 0;
      const all = await keys.revoke(user.id, root.id);
      assert.deepEqual(all?.also_revoked, [sibling.id], 'revoked keys are not revoked twice');
      assert.deepEqual(broadcast.events.map((e) => (e.type === 'key-revoked' ? e.keyId : e.type)).sort(), [root.id, sibling.id].sort());
      assert.deepEqual(
        (await keys.list(user.id)).map((k) => k.name),
        ['other'],
      );
      await assert.rejects(keys.create(as(root), 'orphan'), /unauthorized|Unauthorized|API key/i, 'a revoked key mints nothing');

      // Minting and revoking at once: whichever order they take, no live child of a revoked key is left.
      for (let round = 0; round < 5; round++) {
        const parent = await keys.create({ userId: user.id, scopes: KEY_SCOPES, keyId: null }, `p${round}`);
        await Promise.allSettled([keys.create(as(parent), `c${round}`), keys.revoke(user.id, parent.id)]);
        assert.deepEqual(
          (await keys.list(user.id)).map((k) => k.name),
          ['other'],
          `round ${round}`,
        );
      }
    });

    test(`API keys: 12 concurrent creations with 5 places left under the cap of ${MAX_KEYS_PER_USER} make exactly 5`, async () => {
      const { db, dialect } = await make();
      const users = new UserService(db);
      const user = await users.findOrCreate('cap@example.com');
      const other = await users.findOrCreate('cap-other@example.com');
      const keys = new ApiKeyService(db, dialect, recorder());
      const owner = { userId: user.id, scopes: KEY_SCOPES, keyId: null };
      for (let i = 0; i < MAX_KEYS_PER_USER - 5; i++) await keys.create(owner, `k${i}`);
      const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => keys.create(owner, `race${i}`)));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 5);
      for (const r of results) {
        if (r.status === 'rejected') assert.match(String(r.reason), new RegExp(`At most ${MAX_KEYS_PER_USER} active keys`));
      }
      assert.equal((await keys.list(user.id)).length, MAX_KEYS_PER_USER);
      // The cap counts live keys of one account: another account is unaffected, a revocation frees a place.
      assert.ok(await keys.create({ userId: other.id, scopes: KEY_SCOPES, keyId: null }, 'mine'));
      const [first] = await keys.list(user.id);
      assert.ok(await keys.revoke(user.id, first.id));
      assert.ok(await keys.create(owner, 'after revoke'));
      await assert.rejects(keys.create(owner, 'one too many'), /At most/);
    });

    test('sessions: create, resolve, touch after a minute, expire, destroy', async () => {
      const { db } = await make();
      const user = await new UserService(db).findOrCreate('sess@example.com');
      const broadcast = recorder();
      const sessions = new SessionService(db, 3_600_000, 86_400_000, broadcast);
      const id = await sessions.create(user.id);
      const active = await sessions.resolve(id);
      assert.equal(active?.userId, user.id);
      const stale = new Date(Date.now() - 120_000).toISOString();
      await db.updateTable('sessions').set({ last_seen_at: stale }).execute();
      await sessions.resolve(id);
      const row = await db.selectFrom('sessions').select('last_seen_at').executeTakeFirstOrThrow();
      assert.ok(row.last_seen_at > stale, 'idle clock refreshed');
      await sessions.destroy(active?.idHash ?? '');
      assert.equal(await sessions.resolve(id), null);
      assert.deepEqual(broadcast.events, [{ type: 'session-ended', idHash: active?.idHash }], 'sign-out is broadcast');
      const other = await sessions.create(user.id);
      await db
        .updateTable('sessions')
        .set({ expires_at: new Date(Date.now() - 1).toISOString() })
        .execute();
      assert.equal(await sessions.resolve(other), null);
      assert.equal((await db.selectFrom('sessions').select('id_hash').execute()).length, 0, 'expired row removed');
    });

    test('usage: 50 concurrent records add up exactly, and counts come back as numbers', async () => {
      const { db } = await make();
      const usage = new UsageService(db);
      await Promise.all(Array.from({ length: 50 }, (_, i) => usage.record('usr_1', i % 2 ? 'key_1' : null, 10 + i)));
      const report = await usage.report('usr_1', UsageService.range({ days: 1 }, 366));
      const rows = report.keys;
      assert.equal(rows.length, 2);
      assert.deepEqual(
        report.days.map((d) => d.requests),
        [50],
        'one day holds all 50 requests',
      );
      for (const row of rows) {
        assert.equal(typeof row.characters, 'number');
        assert.equal(typeof row.requests, 'number');
      }
      assert.equal(
        rows.reduce((n, r) => n + r.requests, 0),
        50,
      );
      assert.equal(
        rows.reduce((n, r) => n + r.characters, 0),
        50 * 10 + (49 * 50) / 2,
      );
      assert.deepEqual(rows.map((r) => r.key_id).sort(), ['key_1', null].sort());
      assert.equal(report.days[0].characters, 50 * 10 + (49 * 50) / 2);
    });

    test('ping answers', async () => {
      const store = await make();
      await store.ping();
      assert.equal(store.ready, true);
    });
  });
}
