// The fair queue in front of the workers, driven through the real server with one synthesis slot, so the
// order in which requests are served is observable: a key that keeps several long requests going does not
// push another key's request behind all of them, a key past MAX_CONCURRENT_PER_KEY is refused with 429 on
// every door, and a WebSocket request that has to wait hears its place in line before its first audio.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { metricValue } from '../helpers/metrics.ts';
import { useService } from '../helpers/fixture.ts';
import { StreamClient } from '../helpers/ws-client.ts';

const VOICE = 'espeak-en-us-male-1';
const MAX_PER_KEY = 4;

// One worker with one slot: every synthesis waits for the one before it, in the scheduler's order.

const s = useService({
  env: { WORKERS: '1', SYNTHESIS_SLOTS_PER_WORKER: '1', MAX_CONCURRENT_PER_KEY: String(MAX_PER_KEY), CACHE_MB: '0' },
});

/** Minutes of speech: far more than the socket buffers hold, so it keeps its slot until it is read or dropped. */
function longText(tag: string): string {
  return Array.from({ length: 120 }, (_, i) => `Request ${tag} says sentence number ${i + 1} of a long reading.`).join(' ');
}

const metric = (name: string): Promise<number> => metricValue(s, name);

/** Polls the scheduler's queue gauge (no timing involved: it waits for a state, however long it takes). */
async function untilWaiting(n: number): Promise<void> {
  while ((await metric('voxsmith_synthesis_waiting')) !== n) await new Promise((r) => setTimeout(r, 20));
}

/** Until every slot is free again, so the next test starts from an idle server. */
async function untilIdle(): Promise<void> {
  await untilWaiting(0);
  while ((await metric('voxsmith_synthesis_running')) !== 0) await new Promise((r) => setTimeout(r, 20));
}

interface Pending {
  response: Promise<Response>;
  abort: AbortController;
}

function speak(key: string, text: string, format = 'wav'): Pending {
  const abort = new AbortController();
  const response = fetch(`${s.base}/v1/speak`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text, voice_id: VOICE, format }),
    signal: abort.signal,
  });
  response.catch(() => undefined);
  return { response, abort };
}

/** No bound on a wait: like the gauges above, a stream waits for its message however long the queue takes. */
const openStream = (key: string) => StreamClient.open(`${s.base.replace('http', 'ws')}/v1/ws/stream?token=${key}`, { timeoutMs: Infinity });

describe('fair scheduling: round-robin per key', () => {
  test('a key with three long requests does not starve another key: its one request is served next', async () => {
    const a = await s.newKey('heavy@example.com');
    const b = await s.newKey('light@example.com');
    // A1 takes the only slot; its body stays unread, so it holds the slot until the test lets it go.
    const a1 = speak(a.key, longText('A1'));
    assert.equal((await a1.response).status, 200);
    // Each waits its turn before the next is sent: separate connections may otherwise reach the server in
    // either order, and the order among one key's requests is what the assertion below relies on.
    const a2 = speak(a.key, longText('A2'));
    await untilWaiting(1);
    const a3 = speak(a.key, longText('A3'));
    await untilWaiting(2);
    const b1 = speak(b.key, 'One short sentence from someone else.');
    await untilWaiting(3);

    const order: string[] = [];
    const served = [
      ['A2', a2],
      ['A3', a3],
      ['B1', b1],
    ].map(async ([name, p]) => {
      const pending = p as Pending;
      const res = await pending.response;
      order.push(name as string);
      assert.equal(res.status, 200);
      if (name === 'B1') {
        assert.ok((await res.arrayBuffer()).byteLength > 44, 'B was spoken');
      } else {
        // Its first audio is proof enough that it was served; hanging up frees the slot for the next one.
        pending.abort.abort();
      }
    });
    // Letting A1 go frees the slot: first come, first served would now start A2.
    a1.abort.abort();
    await Promise.all(served);
    assert.deepEqual(order, ['B1', 'A2', 'A3']);
    await untilIdle();
  });

  test('the waiting requests of several keys take turns: the key running least goes first', async () => {
    const holder = await s.newKey('holder@example.com');
    const x = await s.newKey('x@example.com');
    const y = await s.newKey('y@example.com');
    const hold = speak(holder.key, longText('H'));
    assert.equal((await hold.response).status, 200);
    // Three from X arrive before Y's one, yet Y's is second: X has just been served when Y's turn comes.
    // One at a time, so they reach the server in this order (separate connections could overtake each other).
    const x1 = speak(x.key, 'X one.');
    await untilWaiting(1);
    const x2 = speak(x.key, 'X two.');
    await untilWaiting(2);
    const x3 = speak(x.key, 'X three.');
    await untilWaiting(3);
    const y1 = speak(y.key, 'Y one.');
    await untilWaiting(4);
    const order: string[] = [];
    const all = (
      [
        ['X1', x1],
        ['X2', x2],
        ['X3', x3],
        ['Y1', y1],
      ] as const
    ).map(async ([name, p]) => {
      const res = await p.response;
      order.push(name);
      await res.arrayBuffer();
    });
    hold.abort.abort();
    await Promise.all(all);
    assert.deepEqual(order, ['X1', 'Y1', 'X2', 'X3']);
    await untilIdle();
  });
});

describe('MAX_CONCURRENT_PER_KEY', () => {
  test(`a key's request beyond ${MAX_PER_KEY} at once gets 429 with Retry-After over HTTP and the WebSocket; other keys are not refused`, async () => {
    const refusedBefore = await metric('voxsmith_rate_limited_total{policy="concurrency"}').catch(() => 0);
    const c = await s.newKey('greedy@example.com');
    const other = await s.newKey('bystander@example.com');
    const first = speak(c.key, longText('C1'));
    assert.equal((await first.response).status, 200);
    const held = [first, speak(c.key, longText('C2')), speak(c.key, longText('C3')), speak(c.key, longText('C4'))];
    await untilWaiting(3);

    for (const path of ['/v1/speak', '/v1/audio/speech']) {
      const body = path === '/v1/speak' ? { text: 'One more.', voice_id: VOICE } : { model: 'tts-1', voice: 'alloy', input: 'One more.' };
      const res = await s.request(path, { json: body, bearer: c.key });
      assert.equal(res.status, 429, path);
      assert.equal(res.headers.get('retry-after'), '1', path);
      const err = (await res.json()) as { code: string; error: string };
      assert.equal(err.code, 'concurrency_limited');
      assert.match(err.error, /at most 4 syntheses/);
    }

    const stream = await openStream(c.key);
    stream.send({ type: 'synthesize', text: 'One more.', id: 'fifth', voice_id: VOICE });
    const refused = await stream.until((m) => m.type === 'error');
    assert.equal(refused.code, 'concurrency_limited');
    assert.equal(refused.retry_after, 1);
    assert.equal(refused.id, 'fifth');
    stream.ws.close();

    // Another key only waits for a slot.
    const bystander = speak(other.key, 'I only wait my turn.');
    await untilWaiting(4);
    for (const p of held) p.abort.abort();
    const res = await bystander.response;
    assert.equal(res.status, 200);
    assert.ok((await res.arrayBuffer()).byteLength > 44);
    assert.equal(await metric('voxsmith_rate_limited_total{policy="concurrency"}'), refusedBefore + 3);
    await untilIdle();

    // Once its requests have ended, the key may speak again.
    const again = await s.request('/v1/speak', { json: { text: 'Back again.', voice_id: VOICE, format: 'wav' }, bearer: c.key });
    assert.equal(again.status, 200);
    await again.arrayBuffer();
  });
});

describe('WebSocket: a waiting request is told its place', () => {
  test('queued messages carry each request’s position before its first audio, and follow the fair order', async () => {
    const holder = await s.newKey('ws-holder@example.com');
    const f = await s.newKey('ws-f@example.com');
    const g = await s.newKey('ws-g@example.com');
    const h = await s.newKey('ws-h@example.com');
    const hold = speak(holder.key, longText('WS'));
    assert.equal((await hold.response).status, 200);

    const f1 = await openStream(f.key);
    const g1 = await openStream(g.key);
    const f2 = await openStream(f.key);
    const h1 = await openStream(h.key);
    const ask = async (c: StreamClient, id: string, position: number) => {
      c.send({ type: 'synthesize', text: `Request ${id} is spoken.`, id, voice_id: VOICE });
      const queued = await c.until((m) => m.type === 'queued');
      assert.deepEqual(queued, { type: 'queued', position, id });
    };
    await ask(f1, 'f1', 1);
    await ask(g1, 'g1', 2);
    await ask(f2, 'f2', 3);
    // H runs nothing, F already has f1 ahead: H goes before F's second request, which moves back to 4.
    await ask(h1, 'h1', 3);
    await f2.until((m) => m.type === 'queued' && m.position === 4);

    const doneOrder: string[] = [];
    const finished = [f1, g1, f2, h1].map(async (c) => {
      const done = await c.until((m) => m.type === 'done' || m.type === 'error');
      assert.equal(done.type, 'done', JSON.stringify(done));
      doneOrder.push(done.id as string);
    });
    hold.abort.abort();
    await Promise.all(finished);
    assert.deepEqual(doneOrder, ['f1', 'g1', 'h1', 'f2']);

    const positions = (c: StreamClient) => {
      const firstAudio = c.messages.findIndex((m) => m.type === 'audio');
      assert.ok(firstAudio > 0, 'audio came, after the queued messages');
      assert.ok(
        c.messages.slice(firstAudio).every((m) => m.type !== 'queued'),
        'no queued message after audio',
      );
      return c.messages.slice(0, firstAudio).map((m) => m.position);
    };
    assert.deepEqual(positions(f1), [1]);
    assert.deepEqual(positions(g1), [2, 1]);
    assert.deepEqual(positions(h1), [3, 2, 1]);
    assert.deepEqual(positions(f2), [3, 4, 3, 2, 1]);
    for (const c of [f1, g1, f2, h1]) c.ws.close();
    await untilIdle();
  });

  test('a request that starts at once gets no queued message', async () => {
    const k = await s.newKey('ws-idle@example.com');
    const c = await openStream(k.key);
    c.send({ type: 'synthesize', text: 'Straight away.', id: 'now', voice_id: VOICE });
    await c.until((m) => m.type === 'done');
    assert.ok(c.messages.every((m) => m.type !== 'queued'));
    c.ws.close();
  });
});

describe('CACHE_MB=0', () => {
  test('turns the synthesis cache off: an identical request is rendered again', async () => {
    const { key } = await s.newKey('cache-off@example.com');
    for (let i = 0; i < 2; i++) {
      const res = await s.request('/v1/speak', { json: { text: 'Not kept.', voice_id: VOICE, format: 'wav' }, bearer: key });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
    }
    assert.equal(await metric('voxsmith_synthesis_cache_hits_total'), 0);
    assert.equal(await metric('voxsmith_synthesis_cache_max_bytes'), 0);
  });
});
