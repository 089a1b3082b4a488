// Breeding end to end, and what every owned voice can do: be listed and found by its owner only, speak
// through /v1/speak and the stream, be fetched and deleted, and survive a restart.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startServer, type TestServer } from '../helpers/server.ts';
import { dropSchema, randomSchema } from '../helpers/stores.ts';
import { measureBytes, semitonesBetween, speak } from './helpers.ts';

interface VoiceBody {
  id: string;
  name: string;
  language: string;
  gender: string;
  engine: string;
  source: string;
  parents?: string[];
  mutation_rate?: number;
  seed?: number;
  genome: { version: number; base_voice: string; genes: Record<string, number> };
}

const LOW = 'espeak-en-us-male-2';
const HIGH = 'espeak-en-us-female-1';
const dataDir = mkdtempSync(join(tmpdir(), 'voxsmith-breed-'));
// PostgreSQL runs keep one schema across the restart below.
const pgSchema = process.env.VOXSMITH_TEST_STORE === 'postgres' ? randomSchema('breed') : undefined;

let s: TestServer;
let key: string;
let otherKey: string;
before(async () => {
  s = await startServer({ dataDir, ...(pgSchema ? { pgSchema } : {}) });
  await s.app.services.synthesizer.ready();
  key = (await s.newKey('breeder@example.com')).key;
  otherKey = (await s.newKey('someone-else@example.com')).key;
});
after(async () => {
  await s?.close();
  rmSync(dataDir, { recursive: true, force: true });
  if (pgSchema) await dropSchema(pgSchema);
});

async function breed(body: Record<string, unknown>, bearer = key): Promise<Response> {
  return s.request('/v1/forge/breed', { json: body, bearer });
}

async function bred(body: Record<string, unknown>): Promise<VoiceBody> {
  const res = await breed(body);
  assert.equal(res.status, 201, await res.clone().text());
  return ((await res.json()) as { voice: VoiceBody }).voice;
}

async function pitchOf(voiceId: string): Promise<number> {
  return (await measureBytes(await speak(s, key, voiceId))).pitch_hz;
}

async function expectError(res: Response, status: number): Promise<void> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  assert.equal(typeof (JSON.parse(text) as { error: unknown }).error, 'string');
}

const made: VoiceBody[] = [];

describe('breeding', () => {
  test('a child of a low and a high voice, without mutation, lies between them', async () => {
    const child = await bred({ parent_a: LOW, parent_b: HIGH, name: 'Zephyrine', mutation_rate: 0, seed: 7 });
    made.push(child);
    assert.match(child.id, /^breed-[a-z0-9]+$/);
    assert.equal(child.source, 'breed');
    assert.deepEqual(child.parents, [LOW, HIGH]);
    assert.equal(child.mutation_rate, 0);
    assert.equal(child.seed, 7);
    assert.equal(child.language, 'en-US');
    assert.ok(['male', 'female', 'neutral'].includes(child.gender));
    const [low, high, mid] = [await pitchOf(LOW), await pitchOf(HIGH), await pitchOf(child.id)];
    assert.ok(low < mid && mid < high, `child ${mid} Hz, parents ${low} Hz and ${high} Hz`);
    // At least a semitone from either parent: a blend, not a copy.
    assert.ok(semitonesBetween(low, mid) > 1 && semitonesBetween(mid, high) > 1, `${low} < ${mid} < ${high}`);
  });

  test('the same seed gives the same child; a seed is chosen when none is given', async () => {
    const a = await bred({ parent_a: LOW, parent_b: HIGH, name: 'Twin A', mutation_rate: 0.5, seed: 99 });
    const b = await bred({ parent_a: LOW, parent_b: HIGH, name: 'Twin B', mutation_rate: 0.5, seed: 99 });
    assert.notEqual(a.id, b.id);
    assert.deepEqual(a.genome, b.genome);
    assert.equal(a.gender, b.gender);
    const c = await bred({ parent_a: LOW, parent_b: HIGH, name: 'Random' });
    assert.ok(Number.isInteger(c.seed) && (c.seed as number) >= 0, `seed ${c.seed}`);
    assert.equal(c.mutation_rate, 0.2, 'default mutation rate');
    made.push(a, c);
  });

  test('mutation 1 moves the child measurably', async () => {
    let total = 0;
    const seeds = [3, 4, 5];
    for (const seed of seeds) {
      const calm = await bred({ parent_a: LOW, parent_b: HIGH, name: 'calm', mutation_rate: 0, seed });
      const wild = await bred({ parent_a: LOW, parent_b: HIGH, name: 'wild', mutation_rate: 1, seed });
      total += Math.abs(semitonesBetween(await pitchOf(calm.id), await pitchOf(wild.id)));
    }
    assert.ok(total / seeds.length > 1, `mean pitch shift ${(total / seeds.length).toFixed(2)} st`);
  });

  test('parents of different engines and languages, and bred or built-in parents, all work', async () => {
    const mixed = await bred({ parent_a: 'flite-kal16', parent_b: 'espeak-de-female-1', name: 'Mixed', mutation_rate: 0.3, seed: 11 });
    assert.ok(mixed.language === 'en-US' || mixed.language.startsWith('de'), mixed.language);
    await speak(s, key, mixed.id, mixed.language === 'en-US' ? 'Hello there, how are you?' : 'Guten Tag, wie geht es Ihnen?');
    const grandchild = await bred({ parent_a: mixed.id, parent_b: 'default', name: 'Grandchild', mutation_rate: 0.1, seed: 12 });
    assert.deepEqual(grandchild.parents, [mixed.id, 'flite-slt']);
    made.push(mixed, grandchild);
  });

  test('bad requests: 400, unknown or foreign parents: 404, not JSON: 415, no key: 401', async () => {
    for (const mutation_rate of [1.5, -0.1, '0.5', null, Number.NaN]) {
      await expectError(await breed({ parent_a: LOW, parent_b: HIGH, name: 'x', mutation_rate }), 400);
    }
    for (const name of [undefined, '', '  ', 'n'.repeat(101), 42]) {
      await expectError(await breed({ parent_a: LOW, parent_b: HIGH, name, mutation_rate: 0.1 }), 400);
    }
    for (const seed of [1.5, -1, 2 ** 32, 'seven']) {
      await expectError(await breed({ parent_a: LOW, parent_b: HIGH, name: 'x', mutation_rate: 0.1, seed }), 400);
    }
    await expectError(await breed({ parent_b: HIGH, name: 'x', mutation_rate: 0.1 }), 400);
    await expectError(await breed({ parent_a: 'no-such-voice', parent_b: HIGH, name: 'x', mutation_rate: 0.1 }), 404);
    // Another user's voice is as unknown as a voice that does not exist.
    await expectError(await breed({ parent_a: made[0].id, parent_b: HIGH, name: 'x', mutation_rate: 0.1 }, otherKey), 404);
    const form = new FormData();
    form.append('parent_a', LOW);
    form.append('parent_b', HIGH);
    form.append('name', 'form');
    await expectError(
      await fetch(`${s.base}/v1/forge/breed`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form }),
      415,
    );
    await expectError(await s.request('/v1/forge/breed', { json: [LOW, HIGH], bearer: key }), 400);
    await expectError(await s.request('/v1/forge/breed', { json: { parent_a: LOW, parent_b: HIGH, name: 'x' } }), 401);
  });
});

describe('owned voices', () => {
  test("appear in their owner's list and search, and in no one else's", async () => {
    const mine = ((await (await s.request('/api/voices', { bearer: key })).json()) as { voices: VoiceBody[] }).voices;
    for (const v of made)
      assert.ok(
        mine.some((m) => m.id === v.id),
        `${v.id} listed`,
      );
    const filtered = ((await (await s.request('/api/voices?language=en-US', { bearer: key })).json()) as { voices: VoiceBody[] }).voices;
    assert.ok(filtered.some((v) => v.id === made[0].id));
    const theirs = ((await (await s.request('/api/voices', { bearer: otherKey })).json()) as { voices: VoiceBody[] }).voices;
    const anonymous = ((await (await s.request('/api/voices')).json()) as { voices: VoiceBody[] }).voices;
    for (const list of [theirs, anonymous]) assert.ok(list.every((v) => v.source === 'builtin'));
    const found = ((await (await s.request('/api/voices/search?q=zephyrine', { bearer: key })).json()) as { voices: VoiceBody[] }).voices;
    assert.equal(found[0]?.id, made[0].id);
    const notFound = ((await (await s.request('/api/voices/search?q=zephyrine', { bearer: otherKey })).json()) as { voices: VoiceBody[] })
      .voices;
    assert.ok(!notFound.some((v) => v.id === made[0].id));
  });

  test('GET /api/voices/{id}: the owner sees the genome; others get 404; built-in voices are public', async () => {
    const res = await s.request(`/api/voices/${made[0].id}`, { bearer: key });
    assert.equal(res.status, 200);
    const { voice } = (await res.json()) as { voice: VoiceBody };
    assert.equal(voice.id, made[0].id);
    assert.equal(voice.genome.version, 1);
    assert.deepEqual(voice.parents, [LOW, HIGH]);
    await expectError(await s.request(`/api/voices/${made[0].id}`, { bearer: otherKey }), 404);
    await expectError(await s.request(`/api/voices/${made[0].id}`), 404);
    const builtin = await s.request(`/api/voices/${LOW}`);
    assert.equal(builtin.status, 200);
    assert.equal(((await builtin.json()) as { voice: VoiceBody }).voice.source, 'builtin');
  });

  test('speaks through the WebSocket stream', async () => {
    const url = `${s.base.replace('http', 'ws')}/v1/ws/stream?token=${encodeURIComponent(key)}`;
    const ws = new WebSocket(url);
    const bytes = await new Promise<number>((resolve, reject) => {
      let total = 0;
      ws.on('open', () => ws.send(JSON.stringify({ type: 'synthesize', text: 'Hello from a bred voice.', voice_id: made[0].id })));
      ws.on('message', (data) => {
        const msg = JSON.parse(String(data)) as { type: string; audio?: string; error?: string };
        if (msg.type === 'audio') total += Buffer.from(msg.audio ?? '', 'base64').length;
        else if (msg.type === 'done') resolve(total);
        else if (msg.type === 'error') reject(new Error(msg.error));
      });
      ws.on('error', reject);
    });
    ws.close();
    assert.ok(bytes > 24000 * 4 * 0.5, `${bytes} bytes of float32 audio`);
  });

  test("DELETE /api/voices/{id}: only one's own, never a built-in voice", async () => {
    const victim = made[made.length - 1];
    await expectError(await s.request(`/api/voices/${victim.id}`, { method: 'DELETE', bearer: otherKey }), 404);
    await expectError(await s.request(`/api/voices/${LOW}`, { method: 'DELETE', bearer: key }), 403);
    await expectError(await s.request(`/api/voices/${victim.id}`, { method: 'DELETE' }), 401);
    const res = await s.request(`/api/voices/${victim.id}`, { method: 'DELETE', bearer: key });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { id: victim.id, deleted: true });
    await expectError(await s.request(`/api/voices/${victim.id}`, { bearer: key }), 404);
    await expectError(await s.request(`/api/voices/${victim.id}`, { method: 'DELETE', bearer: key }), 404);
    await expectError(await s.request('/v1/speak', { json: { text: 'gone', voice_id: victim.id }, bearer: key }), 404);
    const found = (
      (await (await s.request(`/api/voices/search?q=${encodeURIComponent(victim.name)}`, { bearer: key })).json()) as {
        voices: VoiceBody[];
      }
    ).voices;
    assert.ok(!found.some((v) => v.id === victim.id));
    made.pop();
  });

  test('survive a restart, and sound the same after it', async () => {
    const voice = made[0];
    const before = await pitchOf(voice.id);
    await s.close();
    s = await startServer({ dataDir, ...(pgSchema ? { pgSchema } : {}) });
    key = (await s.newKey('breeder@example.com')).key;
    const list = ((await (await s.request('/api/voices', { bearer: key })).json()) as { voices: VoiceBody[] }).voices;
    for (const v of made)
      assert.ok(
        list.some((m) => m.id === v.id),
        `${v.id} still there`,
      );
    const afterRestart = await pitchOf(voice.id);
    assert.ok(Math.abs(semitonesBetween(before, afterRestart)) < 0.2, `${before} Hz before, ${afterRestart} Hz after`);
  });
});
