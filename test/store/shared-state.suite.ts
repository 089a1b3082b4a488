import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SharedEvent, SharedState } from '../../src/store/shared-state/shared-state.ts';

/** One suite every SharedState implementation must pass (in-memory, Redis). */
export function sharedStateSuite(name: string, make: () => Promise<SharedState>): void {
  describe(`SharedState conformance: ${name}`, () => {
    test('allows exactly the limit inside the window, then refuses with a retry time', async () => {
      const state = await make();
      try {
        const key = `t:${randomUUID()}`;
        const decisions = [];
        for (let i = 0; i < 7; i++) decisions.push(await state.hit(key, 5, 60_000));
        assert.deepEqual(
          decisions.map((d) => d.allowed),
          [true, true, true, true, true, false, false],
        );
        assert.deepEqual(
          decisions.slice(0, 5).map((d) => d.remaining),
          [4, 3, 2, 1, 0],
        );
        const refused = decisions[5];
        assert.equal(refused.remaining, 0);
        assert.ok(refused.retryAfterMs > 0 && refused.retryAfterMs <= 60_000);
      } finally {
        await state.close();
      }
    });

    test('concurrent hits never exceed the limit', async () => {
      const state = await make();
      try {
        const key = `t:${randomUUID()}`;
        const results = await Promise.all(Array.from({ length: 40 }, () => state.hit(key, 10, 60_000)));
        assert.equal(results.filter((r) => r.allowed).length, 10);
      } finally {
        await state.close();
      }
    });

    test('the window slides: hits older than the window stop counting', async () => {
      const state = await make();
      try {
        const key = `t:${randomUUID()}`;
        assert.equal((await state.hit(key, 2, 300)).allowed, true);
        assert.equal((await state.hit(key, 2, 300)).allowed, true);
        assert.equal((await state.hit(key, 2, 300)).allowed, false);
        await new Promise((r) => setTimeout(r, 350));
        assert.equal((await state.hit(key, 2, 300)).allowed, true);
      } finally {
        await state.close();
      }
    });

    test('keys are independent', async () => {
      const state = await make();
      try {
        const a = `t:${randomUUID()}`;
        const b = `t:${randomUUID()}`;
        assert.equal((await state.hit(a, 1, 60_000)).allowed, true);
        assert.equal((await state.hit(a, 1, 60_000)).allowed, false);
        assert.equal((await state.hit(b, 1, 60_000)).allowed, true);
      } finally {
        await state.close();
      }
    });

    test('leases: at most the limit held at once, per key; a released one can be taken again', async () => {
      const state = await make();
      try {
        const key = `t:${randomUUID()}`;
        const a = await state.lease(key, 2, 60_000);
        const b = await state.lease(key, 2, 60_000);
        assert.ok(a && b, 'two of two');
        assert.equal(await state.lease(key, 2, 60_000), null, 'a third is refused');
        assert.ok(await state.lease(`t:${randomUUID()}`, 2, 60_000), 'another key has its own');
        await a.release();
        await a.release(); // twice is harmless
        const c = await state.lease(key, 2, 60_000);
        assert.ok(c, 'the released one is free again');
        assert.equal(await state.lease(key, 2, 60_000), null);
      } finally {
        await state.close();
      }
    });

    test('concurrent lease requests never get more than the limit', async () => {
      const state = await make();
      try {
        const key = `t:${randomUUID()}`;
        const leases = await Promise.all(Array.from({ length: 20 }, () => state.lease(key, 3, 60_000)));
        assert.equal(leases.filter((l) => l !== null).length, 3);
      } finally {
        await state.close();
      }
    });

    test('a lease lapses after its ttl unless renewed (a node that died frees its leases)', async () => {
      const state = await make();
      try {
        const key = `t:${randomUUID()}`;
        const kept = await state.lease(key, 2, 1_500);
        const dropped = await state.lease(key, 2, 1_500);
        assert.ok(kept && dropped);
        await new Promise((r) => setTimeout(r, 800));
        await kept.renew();
        await new Promise((r) => setTimeout(r, 800));
        // 1 600 ms in: the one never renewed lapsed at 1 500 ms; the renewed one holds until 2 300 ms (room for a
        // slow machine on both sides).
        assert.ok(await state.lease(key, 2, 60_000), 'the lapsed lease is free');
        assert.equal(await state.lease(key, 2, 60_000), null, 'the renewed one still counts');
      } finally {
        await state.close();
      }
    });

    test('published events reach subscribers; unsubscribe stops them', async () => {
      const state = await make();
      try {
        const seen: SharedEvent[] = [];
        const off = state.subscribe((e) => seen.push(e));
        const keyId = randomUUID();
        await state.publish({ type: 'key-revoked', keyId });
        const deadline = Date.now() + 2000;
        while (!seen.some((e) => e.type === 'key-revoked' && e.keyId === keyId) && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 10));
        assert.ok(seen.some((e) => e.type === 'key-revoked' && e.keyId === keyId));
        off();
        const count = seen.length;
        await state.publish({ type: 'session-ended', idHash: 'x' });
        await new Promise((r) => setTimeout(r, 100));
        assert.equal(seen.length, count);
      } finally {
        await state.close();
      }
    });
  });
}
