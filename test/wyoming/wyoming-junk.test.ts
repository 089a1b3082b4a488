// Issue 44 W1: eight connections sending an unknown event every 20 s held an address's whole share forever, and a
// local Home Assistant (same address) was refused. Only events the server answers count as activity now, and an
// address at its limit closes its quietest connection that is not being answered to serve a newcomer.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_WYOMING_LIMITS } from '../../src/wyoming/server.ts';
import { useService } from '../helpers/fixture.ts';
import { WyomingClient } from '../helpers/wyoming-client.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const share = DEFAULT_WYOMING_LIMITS.connectionsPerAddress;

/** Resolves true when `client` is closed by the server within `ms`, false otherwise (a bound about hangs). */
async function closedWithin(client: WyomingClient, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const closed = await Promise.race([client.whenClosed().then(() => true as const), late]);
  clearTimeout(timer);
  return closed;
}

/** `share` connections from `localAddress`, each sending `type` every 200 ms until closed. */
async function junk(port: number, localAddress: string, type: string): Promise<{ clients: WyomingClient[]; stop(): void }> {
  const clients = Array.from({ length: share }, () => new WyomingClient(port, { localAddress }));
  await Promise.all(clients.map((c) => c.connected()));
  const timer = setInterval(() => {
    for (const c of clients) if (!c.closed) c.send(type, {});
  }, 200);
  return {
    clients,
    stop: () => {
      clearInterval(timer);
      for (const c of clients) c.close();
    },
  };
}

describe('Wyoming: junk connections neither stay nor lock out a real client (issue 44 W1)', () => {
  const s = useService({ env: { WYOMING_PORT: '0' }, wyomingLimits: { idleMs: 2000 } });
  let port: number;
  before(async () => {
    port = s.app.services.wyoming?.address()?.port ?? 0;
    const { id, cookie } = await s.newKey('junk@example.com', 'home-assistant');
    const put = await s.request('/api/wyoming', { method: 'PUT', cookie, sameOrigin: true, json: { key_id: id } });
    assert.equal(put.status, 200);
  });

  test('connections sending only unknown events are closed by the idle timeout', async () => {
    const flood = await junk(port, '127.0.0.3', 'not-an-event');
    try {
      for (const [i, c] of flood.clients.entries())
        assert.ok(await closedWithin(c, 30_000), `unknown-event connection ${i} still open 30 s after an idle timeout of 2 s`);
      // The address is free again: a real client is served.
      const real = new WyomingClient(port, { localAddress: '127.0.0.3' });
      real.send('describe');
      assert.equal((await real.next(10_000)).type, 'info');
      real.close();
    } finally {
      flood.stop();
    }
  });

  test('a full share of pinging connections gives way to a real client of the same address, which is served', async () => {
    const pingers = await junk(port, '127.0.0.4', 'ping');
    try {
      // Each is answered (they are real connections), so the idle timer alone never closes them.
      let real: WyomingClient | undefined;
      const refusals: unknown[] = [];
      for (const deadline = Date.now() + 20_000; !real && Date.now() < deadline;) {
        const c = new WyomingClient(port, { localAddress: '127.0.0.4' });
        c.send('describe');
        const first = await c.next(10_000).catch((err: Error) => ({ type: 'none', data: { error: err.message } }));
        if (first.type === 'info') real = c;
        else {
          refusals.push(first.data);
          c.close();
          await sleep(250);
        }
      }
      assert.ok(real, `a real client of the address was refused throughout: ${JSON.stringify(refusals.slice(-3))}`);
      real.send('synthesize', { text: 'Home Assistant is served.' });
      assert.ok((await real.audio()).samples > 12_000);
      real.close();
      // The address still holds no more than its share: each newcomer closed exactly one pinger, told why.
      await sleep(300);
      const open = pingers.clients.filter((c) => !c.closed).length;
      assert.equal(open, share - 1, 'one pinger made room; the rest are kept');
    } finally {
      pingers.stop();
    }
  });
});
