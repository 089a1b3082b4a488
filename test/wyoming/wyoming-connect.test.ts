// Wyoming without a restart: the server is on from the start with no key; until a signed-in user connects one on
// the dashboard's API (/api/wyoming), it answers `describe` and refuses synthesis with an error that says how to
// connect. Then a raw TCP `synthesize` speaks, billed to that key, and the dashboard lists what it served.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { pcm16Samples, rms } from '../audio/signals.ts';
import { startServer } from '../helpers/server.ts';
import { useService } from '../helpers/fixture.ts';
import { WyomingClient } from '../helpers/wyoming-client.ts';

let port: number;
const s = useService({ env: { WYOMING_PORT: '0' } }, async () => {
  const address = s.app.services.wyoming?.address();
  assert.ok(address, 'Wyoming listens with no key configured');
  port = address.port;
});

interface Status {
  enabled: boolean;
  listening: boolean;
  port: number;
  local_only: boolean;
  hosts: string[];
  problem: string | null;
  connection: { key_id: string; key_name: string; masked_key: string; source: string; yours: boolean } | null;
  requests: Array<{ at: string; client: string; voice_id: string | null; characters: number; audio_seconds: number; outcome: string }>;
}

async function status(cookie: string): Promise<Status> {
  const res = await s.request('/api/wyoming', { cookie });
  assert.equal(res.status, 200);
  return (await res.json()) as Status;
}

async function synthesize(
  text: string,
  voice = 'flite-slt',
): Promise<{ client: WyomingClient; first: Awaited<ReturnType<WyomingClient['next']>> }> {
  const client = new WyomingClient(port);
  client.send('synthesize', { text, voice: { name: voice } });
  return { client, first: await client.next() };
}

describe('Wyoming connected from the dashboard', () => {
  test('before a key is connected: describe is answered, synthesize gets an error that says how to connect', async () => {
    const c = new WyomingClient(port);
    c.send('describe');
    const info = await c.next();
    assert.equal(info.type, 'info');
    assert.ok(((info.data.tts as Array<{ voices: unknown[] }>)[0].voices.length ?? 0) > 100);
    c.send('synthesize', { text: 'Turn on the lights.' });
    const e = await c.next();
    assert.equal(e.type, 'error');
    assert.equal(e.data.code, 'wyoming_not_connected');
    assert.match(String(e.data.text), /Home Assistant page/);
    assert.match(String(e.data.text), /http:\/\/voxsmith\.test\/home-assistant/, 'names the dashboard page');
    assert.match(String(e.data.text), /WYOMING_API_KEY/);
    // The connection stays usable.
    c.send('ping');
    assert.equal((await c.next()).type, 'pong');
    c.close();
  });

  test('a signed-in user connects a key with no restart; a raw synthesize then speaks, billed to that key', async () => {
    const { key, id, cookie } = await s.newKey('owner@example.com', 'home-assistant');
    const before = await status(cookie);
    assert.equal(before.enabled, true);
    assert.equal(before.listening, true);
    assert.equal(before.port, port);
    assert.equal(before.local_only, true);
    assert.deepEqual(before.hosts, ['127.0.0.1']);
    assert.equal(before.connection, null);
    assert.ok(
      before.requests.some((r) => r.outcome === 'wyoming_not_connected'),
      'the refused attempt is listed',
    );

    const refusedWithoutOrigin = await s.request('/api/wyoming', { method: 'PUT', cookie, json: { key_id: id } });
    assert.equal(refusedWithoutOrigin.status, 403, 'a cookie write needs our Origin');
    const put = await s.request('/api/wyoming', { method: 'PUT', cookie, sameOrigin: true, json: { key_id: id } });
    assert.equal(put.status, 200, await put.clone().text());
    const connected = (await put.json()) as Status;
    assert.equal(connected.connection?.key_id, id);
    assert.equal(connected.connection?.key_name, 'home-assistant');
    assert.equal(connected.connection?.source, 'dashboard');
    assert.equal(connected.connection?.yours, true);

    const text = 'The kitchen lights are now off.';
    const { client, first } = await synthesize(text);
    assert.equal(first.type, 'audio-start', JSON.stringify(first.data));
    let bytes = Buffer.alloc(0);
    for (;;) {
      const e = await client.next();
      if (e.type === 'audio-stop') break;
      bytes = Buffer.concat([bytes, Buffer.from(e.payload ?? new Uint8Array())]);
    }
    client.close();
    assert.ok(bytes.length / 2 > 24_000, 'over a second of speech');
    assert.ok(rms(pcm16Samples(bytes)) > 0.01, 'not silent');

    const usage = (await (await s.request('/api/usage', { bearer: key })).json()) as {
      keys: Array<{ id?: string; key_id?: string; characters: number }>;
    };
    assert.ok(JSON.stringify(usage).includes(id), 'billed to the connected key');
    const after = await status(cookie);
    const served = after.requests.find((r) => r.outcome === 'spoken');
    assert.ok(served, JSON.stringify(after.requests));
    assert.equal(served.characters, text.length);
    assert.equal(served.voice_id, 'flite-slt');
    assert.equal(served.client, '127.0.0.1');
    assert.ok(served.audio_seconds > 1);
  });

  test('another account cannot take over or see the key; the owner disconnects, and synthesis is refused again', async () => {
    const other = await s.newKey('other@example.com', 'theirs');
    const seen = await status(other.cookie);
    assert.equal(seen.connection?.yours, false);
    assert.equal(seen.connection?.key_id, '');
    assert.equal(seen.connection?.masked_key, '');
    assert.ok(!seen.requests.some((r) => r.outcome === 'spoken'), 'the owner’s requests stay theirs');
    const takeover = await s.request('/api/wyoming', { method: 'PUT', cookie: other.cookie, sameOrigin: true, json: { key_id: other.id } });
    assert.equal(takeover.status, 403);
    const notTheirs = await s.request('/api/wyoming', { method: 'DELETE', cookie: other.cookie, sameOrigin: true });
    assert.equal(notTheirs.status, 403);
    const foreignKey = await s.request('/api/wyoming', { method: 'PUT', bearer: other.key, json: { key_id: 'no-such-key' } });
    assert.equal(foreignKey.status, 404);

    const { cookie } = await s.signIn('owner@example.com');
    const off = await s.request('/api/wyoming', { method: 'DELETE', cookie, sameOrigin: true });
    assert.equal(off.status, 200);
    assert.equal(((await off.json()) as Status).connection, null);
    const { client, first } = await synthesize('Anyone there?');
    assert.equal(first.type, 'error');
    assert.equal(first.data.code, 'wyoming_not_connected');
    client.close();

    // Now free: the other account may connect its key (with a Bearer key too, as a headless script would).
    const theirs = await s.request('/api/wyoming', { method: 'PUT', bearer: other.key, json: { key_id: other.id } });
    assert.equal(theirs.status, 200);
    // Revoking the connected key disconnects it: a revoked key bills nothing.
    const revoked = await s.request('/api/auth/api-keys', {
      method: 'DELETE',
      cookie: other.cookie,
      sameOrigin: true,
      json: { key_id: other.id },
    });
    assert.equal(revoked.status, 200);
    const again = await synthesize('Still there?');
    assert.equal(again.first.type, 'error');
    assert.equal(again.first.data.code, 'wyoming_not_connected');
    again.client.close();
  });
});

describe('Wyoming on a busy port', () => {
  let holder: Server;
  let taken: number;
  before(async () => {
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    taken = (holder.address() as { port: number }).port;
  });
  after(async () => {
    await new Promise<void>((resolve) => holder.close(() => resolve()));
  });

  test('a Wyoming port in use is one log line, not a failed start; the dashboard says why', async () => {
    const node = await startServer({ env: { WYOMING_PORT: String(taken) } });
    try {
      const lines = node.logs.filter((l) => l.includes('Wyoming'));
      assert.equal(lines.length, 1, lines.join(''));
      const line = JSON.parse(lines[0]) as { level: number; msg: string };
      assert.equal(line.level, 40, 'a warning');
      assert.match(line.msg, new RegExp(`127\\.0\\.0\\.1:${taken} in use by another process; this node serves no Wyoming \\(WYOMING_PORT`));
      assert.equal((await node.request('/healthz')).status, 200, 'the HTTP service runs');
      const { cookie } = await node.signIn('busy@example.com');
      const st = (await (await node.request('/api/wyoming', { cookie })).json()) as Status;
      assert.equal(st.listening, false);
      assert.match(st.problem ?? '', /in use/);
    } finally {
      await node.close();
    }
  });

  test('WYOMING_PORT=off: no Wyoming server, and the dashboard says it is off', async () => {
    const node = await startServer({ env: { WYOMING_PORT: 'off' } });
    try {
      assert.equal(node.app.services.wyoming, undefined);
      const { cookie } = await node.signIn('off@example.com');
      const st = (await (await node.request('/api/wyoming', { cookie })).json()) as Status;
      assert.equal(st.enabled, false);
      assert.equal(st.listening, false);
    } finally {
      await node.close();
    }
  });
});
