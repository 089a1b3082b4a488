import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kysely } from 'kysely';
import { MemorySharedState } from '../../src/store/shared-state/memory.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { StreamClient } from '../helpers/ws-client.ts';

test('closing the app stops its doors first, then shared state, and closes the database once, last', async () => {
  const events: string[] = [];
  let s: TestServer | undefined;
  class WatchedState extends MemorySharedState {
    override async close(): Promise<void> {
      events.push(`shared state closed; Wyoming ${s?.app.services.wyoming?.status().status}`);
      await super.close();
    }
  }
  // Any second close of the database, by whichever part, shows here.
  const destroy = Kysely.prototype.destroy;
  Kysely.prototype.destroy = async function (this: Kysely<unknown>): Promise<void> {
    if (this === (s?.app.services.db as unknown)) events.push('database closed');
    return destroy.call(this);
  };
  try {
    s = await startServer({ sharedState: new WatchedState(), env: { WYOMING_PORT: '0' } });
    const { key } = await s.newKey('shutdown@example.com');
    const stream = await StreamClient.open(`${s.base.replace('http', 'ws')}/v1/ws/stream?token=${key}`);
    assert.equal(s.app.services.wyoming?.status().status, 'listening');
    await s.close();
    // The stream is told why it ends, by the service rather than by the WebSocket library's bare close.
    assert.deepEqual(await stream.closedWithin(10_000), { code: 1001, reason: 'server shutting down' });
  } finally {
    Kysely.prototype.destroy = destroy;
  }
  assert.deepEqual(events, ['shared state closed; Wyoming stopped', 'database closed']);
});
