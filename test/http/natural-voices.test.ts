// Natural voices added and removed while the service runs, through the real server and every door: installed
// by the operator over the API (and by another process writing VOICES_DIR directly), they are listed first,
// become `default` and OpenAI's voice names (by gender), and speak on /v1/speak, /v1/audio/speech, the
// WebSocket and Wyoming, without a restart; removed, they are gone. The models are generated ones whose tone
// says which voice spoke (test/helpers/onnx-models.ts), served from a local catalogue in the real formats.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measurePitch } from '../../src/audio/analysis.ts';
import { loadCatalog } from '../../src/voices/install/catalog.ts';
import { installVoice } from '../../src/voices/install/installer.ts';
import { encodeEvent, FrameReader, type WyomingEvent } from '../../src/wyoming/frames.ts';
import { pcm16Samples } from '../audio/signals.ts';
import { PIPER_BASE_HZ, piperModel } from '../helpers/onnx-models.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { deleteRedisPrefix, dropSchema, randomPrefix, randomSchema, testStore, testWithRedis } from '../helpers/stores.ts';
import { startCatalogServer, type CatalogServer } from '../helpers/voice-catalog-server.ts';
import { StreamClient } from '../helpers/ws-client.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'voxsmith-natural-'));
const voicesDir = join(dataDir, 'voices');
let catalog: CatalogServer;
let s: TestServer;
let key: string;
let operatorCookie: string;
let wyomingPort: number;
const pgSchema = testStore === 'postgres' ? randomSchema('natural') : undefined;
const redisPrefix = testWithRedis ? randomPrefix('natural') : undefined;

// Kokoro test voices speak a tone of 200 + 1000 x style Hz; the catalogue server gives voice i a style of 0.1 + 0.05 i.
const KOKORO_HZ: Record<string, number> = { 'kokoro-af-heart': 300, 'kokoro-am-michael': 350, 'kokoro-bf-emma': 400 };

before(async () => {
  catalog = await startCatalogServer({
    piper: [{ key: 'en_US-lessac-medium', paddingBytes: 200_000 }, { key: 'en_US-ryan-high' }],
    kokoroVoices: ['af_heart', 'am_michael', 'bf_emma'],
  });
  const env = {
    VOICES_DIR: voicesDir,
    VOICES_CATALOG_URL: catalog.catalogUrl,
    KOKORO_FILES_URL: catalog.kokoroUrl,
    WORKERS: '1',
    LOUDNESS_TARGET_LUFS: 'off',
  };
  // The Wyoming key must exist before the server that bills it starts (the same database for both runs); the
  // first account is the operator.
  const first = await startServer({ dataDir, env, pgSchema, redisPrefix });
  ({ key, cookie: operatorCookie } = await first.newKey('owner@example.com', 'home'));
  await first.close();
  s = await startServer({ dataDir, env: { ...env, WYOMING_PORT: '0', WYOMING_API_KEY: key }, pgSchema, redisPrefix });
  const address = s.app.services.wyoming?.address();
  assert.ok(address);
  wyomingPort = address.port;
  ({ cookie: operatorCookie } = await s.signIn('owner@example.com'));
});
after(async () => {
  await s?.close();
  await catalog?.close();
  if (pgSchema) await dropSchema(pgSchema);
  if (redisPrefix) await deleteRedisPrefix(redisPrefix);
  rmSync(dataDir, { recursive: true, force: true });
});

interface V {
  id: string;
  engine: string;
  gender: string;
  language: string;
}

async function voiceIds(path = '/api/voices', headers: Record<string, string> = {}): Promise<string[]> {
  const res = await s.request(path, { headers });
  assert.equal(res.status, 200);
  return ((await res.json()) as { voices: V[] }).voices.map((v) => v.id);
}

async function waitFor(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return Date.now() - started;
}

function pcmOf(bytes: ArrayBuffer): Float32Array {
  return pcm16Samples(new Uint8Array(bytes));
}

async function speak(path: string, json: Record<string, unknown>): Promise<{ voice: string | null; pitch: number; status: number }> {
  const res = await s.request(path, { json, bearer: key });
  if (res.status !== 200) return { voice: null, pitch: 0, status: res.status };
  const x = pcmOf(await res.arrayBuffer());
  return { voice: res.headers.get('x-voice-id'), pitch: measurePitch(x, 24_000).medianHz, status: 200 };
}

/** A raw Wyoming client for one request. */
async function wyoming(send: Array<[string, Record<string, unknown>?]>, until: (e: WyomingEvent) => boolean): Promise<WyomingEvent[]> {
  const socket = connect(wyomingPort, '127.0.0.1');
  const reader = new FrameReader();
  const events: WyomingEvent[] = [];
  const done = new Promise<void>((resolve, reject) => {
    socket.on('data', (b: Buffer) => {
      events.push(...reader.push(b));
      if (events.some(until)) resolve();
    });
    socket.on('error', reject);
    socket.on('close', () => resolve());
  });
  for (const [type, data] of send) socket.write(encodeEvent(type, data));
  await done;
  socket.destroy();
  return events;
}

describe('natural voices while the service runs', () => {
  test('a fresh install: no natural voice, default and OpenAI names on the built-in voices', async () => {
    assert.deepEqual(await voiceIds('/api/voices?engine=piper'), []);
    assert.equal((await speak('/v1/speak', { text: 'Hello.', voice_id: 'default', format: 'pcm' })).voice, 'flite-slt');
    assert.equal(
      (await speak('/v1/audio/speech', { model: 'tts-1', voice: 'alloy', input: 'Hello.', response_format: 'pcm' })).voice,
      'flite-slt',
    );
  });

  test('the first account is the operator; another account is not, and the operator routes refuse it', async () => {
    const me = (await (await s.request('/api/auth/session', { cookie: operatorCookie })).json()) as { user: { operator: boolean } };
    assert.equal(me.user.operator, true);
    const other = await s.signIn('guest@example.com');
    assert.equal(
      ((await (await s.request('/api/auth/session', { cookie: other.cookie })).json()) as { user: { operator: boolean } }).user.operator,
      false,
    );
    const refused = await s.request('/api/admin/voices/catalog', { cookie: other.cookie });
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { code: string }).code, 'operator_only');
    const install = await s.request('/api/admin/voices/installs', {
      json: { name: 'en_US-lessac-medium' },
      cookie: other.cookie,
      sameOrigin: true,
    });
    assert.equal(install.status, 403);
    assert.equal((await s.request('/api/admin/voices/catalog')).status, 401);
    // A cookie-authenticated write from another origin is refused before anything starts.
    const csrf = await s.request('/api/admin/voices/installs', {
      json: { name: 'en_US-lessac-medium' },
      cookie: operatorCookie,
      headers: { origin: 'http://evil.example' },
    });
    assert.equal(csrf.status, 403);
  });

  test('the operator installs a Piper voice over the API: progress, then it speaks on every door at once', async () => {
    const list = await s.request('/api/admin/voices/catalog?language=en', { cookie: operatorCookie });
    assert.equal(list.status, 200);
    const entries = ((await list.json()) as { voices: { name: string; installed: boolean; quality: string; gender: string }[] }).voices;
    assert.deepEqual(
      entries.map((v) => [v.name, v.quality, v.gender, v.installed]),
      // The recommended voices first, the good first voice at the top; the large Kokoro bundles last.
      [
        ['en_US-lessac-medium', 'medium', 'female', false],
        ['en_US-ryan-high', 'high', 'male', false],
        ['kokoro-v1.0-int8', 'int8', 'neutral', false],
        ['kokoro-v1.0', 'fp32', 'neutral', false],
        ['kokoro-v1.0-fp16', 'fp16', 'neutral', false],
      ],
    );
    const started = await s.request('/api/admin/voices/installs', {
      json: { name: 'en_US-lessac-medium' },
      cookie: operatorCookie,
      sameOrigin: true,
    });
    assert.equal(started.status, 202, await started.clone().text());
    let last: { status: string; received: number; total: number } | undefined;
    await waitFor('the install', async () => {
      const res = await s.request('/api/admin/voices/installs', { cookie: operatorCookie });
      last = ((await res.json()) as { installs: { name: string; status: string; received: number; total: number }[] }).installs.find(
        (j) => j.name === 'en_US-lessac-medium',
      );
      return last?.status === 'installed' || last?.status === 'failed';
    });
    assert.equal(last?.status, 'installed');
    assert.equal(last?.received, last?.total);
    // Applied before the install reported done: no wait for the watcher.
    assert.ok((await voiceIds('/api/voices?engine=piper')).includes('piper-en-us-lessac-medium'));
    const http = await speak('/v1/speak', { text: 'Hello there.', voice_id: 'piper-en-us-lessac-medium', format: 'pcm' });
    assert.ok(Math.abs(http.pitch - PIPER_BASE_HZ) < 3, `the Piper model spoke: ${http.pitch} Hz`);
    // It is the only natural voice: `default`, and both OpenAI models with a female name, speak it.
    assert.equal((await speak('/v1/speak', { text: 'Hello.', voice_id: 'default', format: 'pcm' })).voice, 'piper-en-us-lessac-medium');
    for (const model of ['tts-1', 'tts-1-hd']) {
      assert.equal(
        (await speak('/v1/audio/speech', { model, voice: 'nova', input: 'Hello.', response_format: 'pcm' })).voice,
        'piper-en-us-lessac-medium',
        model,
      );
    }
    const installed = (await (await s.request('/api/admin/voices/installed', { cookie: operatorCookie })).json()) as {
      voices: { name: string; size: number; voice_ids: string[] }[];
    };
    assert.deepEqual(installed.voices, [
      {
        name: 'en_US-lessac-medium',
        engine: 'piper',
        size: installed.voices[0]?.size,
        files: ['en_US-lessac-medium.onnx', 'en_US-lessac-medium.onnx.json'],
        voice_ids: ['piper-en-us-lessac-medium'],
      },
    ]);
  });

  test('a model replaced in place speaks its new self: workers reload it, and no cached answer of the old one is served', async () => {
    const say = () => speak('/v1/speak', { text: 'Hello there.', voice_id: 'piper-en-us-lessac-medium', format: 'pcm' });
    assert.ok(Math.abs((await say()).pitch - PIPER_BASE_HZ) < 3);
    // The same file name, another model (its tone is generated for 16 kHz, the JSON still says 22 050 Hz).
    const path = join(voicesDir, 'en_US-lessac-medium.onnx');
    const original = readFileSync(path);
    const swap = (bytes: Uint8Array) => {
      writeFileSync(`${path}.new`, bytes);
      renameSync(`${path}.new`, path);
    };
    swap(piperModel({ sampleRate: 16000 }));
    await waitFor('the replaced model', async () => Math.abs((await say()).pitch - PIPER_BASE_HZ) > 50);
    swap(original);
    await waitFor('the original model again', async () => Math.abs((await say()).pitch - PIPER_BASE_HZ) < 3);
  });

  test('voices written into VOICES_DIR by another process (the CLI, another node) are picked up within seconds', async () => {
    const voices = await loadCatalog({ catalogUrl: new URL(catalog.catalogUrl), kokoroFilesUrl: new URL(catalog.kokoroUrl) });
    await installVoice(
      voices.find((v) => v.name === 'kokoro-v1.0-int8')!,
      { voicesDir },
    );
    await installVoice(
      voices.find((v) => v.name === 'en_US-ryan-high')!,
      { voicesDir },
    );
    const waited = await waitFor(
      'the Kokoro voices',
      async () => (await voiceIds('/api/voices?engine=kokoro')).length === 3 && (await voiceIds('/api/voices?engine=piper')).length === 2,
    );
    assert.ok(waited < 10_000, `seen after ${waited} ms`);
    assert.match(s.logs.join(''), /VOICES_DIR: \d natural voices? added \((4|5) loaded\)/);
  });

  test('natural voices first: in lists (by the caller’s language), in search, as `default`, and for OpenAI’s names by gender', async () => {
    const all = await voiceIds();
    // Kokoro's best-graded voice, then the others by quality; the built-in voices after every natural one.
    assert.deepEqual(all.slice(0, 5), [
      'kokoro-af-heart',
      'kokoro-bf-emma',
      'kokoro-am-michael',
      'piper-en-us-ryan-high',
      'piper-en-us-lessac-medium',
    ]);
    assert.equal(all[5], 'flite-slt');
    const british = await voiceIds('/api/voices', { 'accept-language': 'en-GB,en;q=0.8' });
    assert.equal(british[0], 'kokoro-bf-emma', 'the exact region first');
    const german = await voiceIds('/api/voices', { 'accept-language': 'de-DE,de;q=0.9' });
    assert.match(german[0], /^espeak-de-/, 'the caller’s language first');
    assert.ok(german.indexOf('kokoro-af-heart') < german.indexOf('espeak-af-female-1'), 'natural voices before other languages’ built-ins');
    for (const q of ['natural', 'neural', 'realistic human']) {
      const found = ((await (await s.request(`/api/voices/search?q=${encodeURIComponent(q)}`)).json()) as { voices: V[] }).voices;
      assert.deepEqual(
        found
          .slice(0, 5)
          .map((v) => v.engine)
          .sort(),
        ['kokoro', 'kokoro', 'kokoro', 'piper', 'piper'],
        q,
      );
      assert.ok(!found.some((v) => v.language.startsWith('ne')), `"${q}" does not find Nepali`);
    }
    assert.equal((await speak('/v1/speak', { text: 'Hello.', voice_id: 'default', format: 'pcm' })).voice, 'kokoro-af-heart');
    const names: Record<string, string> = {};
    for (const voice of ['alloy', 'echo', 'nova', 'onyx', 'fable']) {
      const r = await speak('/v1/audio/speech', { model: 'tts-1', voice, input: 'Hello.', response_format: 'pcm' });
      names[voice] = r.voice ?? '';
      if (r.voice && KOKORO_HZ[r.voice]) assert.ok(Math.abs(r.pitch - KOKORO_HZ[r.voice]) < 5, `${voice}: ${r.pitch} Hz`);
    }
    assert.deepEqual(names, {
      alloy: 'kokoro-af-heart',
      echo: 'kokoro-am-michael',
      nova: 'kokoro-bf-emma',
      onyx: 'piper-en-us-ryan-high',
      fable: 'kokoro-am-michael',
    });
  });

  test('/v1/audio/voices: unique readable labels, natural voices right after OpenAI’s names', async () => {
    const res = await s.request('/v1/audio/voices');
    const voices = ((await res.json()) as { voices: { id: string; name: string }[] }).voices;
    assert.equal(new Set(voices.map((v) => v.id)).size, voices.length);
    assert.equal(new Set(voices.map((v) => v.name)).size, voices.length, 'no two labels alike');
    assert.equal(voices[0].name, 'alloy → Heart · American English, female, natural');
    assert.equal(voices[13].id, 'kokoro-af-heart');
    const af = voices.find((v) => v.id === 'espeak-af-female-1');
    assert.equal(af?.name, 'Afrikaans (female) · Afrikaans (South Africa), espeak');
    assert.equal(voices.find((v) => v.id === 'flite-slt')?.name, 'Sally · American English, female, flite');
  });

  test('the WebSocket stream and Wyoming speak the new voices', async () => {
    const ws = await StreamClient.open(`${s.base.replace('http', 'ws')}/v1/ws/stream?token=${key}`);
    ws.send({ type: 'synthesize', text: 'Good evening.', voice_id: 'kokoro-bf-emma' });
    await ws.until((m) => m.type === 'done' || m.type === 'error');
    assert.ok(!ws.messages.some((m) => m.type === 'error'), JSON.stringify(ws.messages.find((m) => m.type === 'error')));
    assert.ok(Math.abs(measurePitch(ws.samples(), 24_000).medianHz - 400) < 5);
    ws.close();

    const info = await wyoming([['describe']], (e) => e.type === 'info');
    const names = (info[0].data.tts as { voices: { name: string }[] }[])[0].voices.map((v) => v.name);
    assert.deepEqual(names.slice(0, 3), ['kokoro-af-heart', 'kokoro-bf-emma', 'kokoro-am-michael'], 'Wyoming lists natural voices first');
    const events = await wyoming(
      [['synthesize', { text: 'The lights are off.', voice: { name: 'piper-en-us-lessac-medium' } }]],
      (e) => e.type === 'audio-stop' || e.type === 'error',
    );
    assert.ok(!events.some((e) => e.type === 'error'), JSON.stringify(events.find((e) => e.type === 'error')?.data));
    const audio = Buffer.concat(events.filter((e) => e.type === 'audio-chunk').map((e) => Buffer.from(e.payload ?? new Uint8Array())));
    assert.ok(Math.abs(measurePitch(pcm16Samples(audio), 24_000).medianHz - PIPER_BASE_HZ) < 3);
  });

  test('removed voices are gone from every door: over the API at once, from VOICES_DIR within seconds', async () => {
    const res = await s.request('/api/admin/voices/installed/en_US-lessac-medium', {
      method: 'DELETE',
      cookie: operatorCookie,
      sameOrigin: true,
    });
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual(((await res.json()) as { removed: string[] }).removed, ['en_US-lessac-medium.onnx', 'en_US-lessac-medium.onnx.json']);
    assert.ok(!(await voiceIds()).includes('piper-en-us-lessac-medium'));
    const gone = await s.request('/v1/speak', { json: { text: 'Hello.', voice_id: 'piper-en-us-lessac-medium' }, bearer: key });
    assert.equal(gone.status, 404);
    const again = await s.request('/api/admin/voices/installed/en_US-lessac-medium', {
      method: 'DELETE',
      cookie: operatorCookie,
      sameOrigin: true,
    });
    assert.equal(again.status, 404);
    assert.equal(((await again.json()) as { code: string }).code, 'voice_not_installed');

    await rm(join(voicesDir, 'kokoro-v1.0.int8.onnx'));
    const waited = await waitFor('Kokoro gone', async () => (await voiceIds('/api/voices?engine=kokoro')).length === 0);
    assert.ok(waited < 10_000);
    assert.equal((await speak('/v1/speak', { text: 'Hello.', voice_id: 'default', format: 'pcm' })).voice, 'piper-en-us-ryan-high');
    assert.equal((await speak('/v1/speak', { text: 'Hello.', voice_id: 'kokoro-af-heart', format: 'pcm' })).status, 404);
  });

  test('an unreachable catalogue is a 503 with what to do, and the service goes on', async () => {
    catalog.setDown(true);
    try {
      // The catalogue is cached for a while; as after that while, it is read afresh.
      s.app.services.voiceInstalls.forgetCatalog();
      const res = await s.request('/api/admin/voices/catalog', { cookie: operatorCookie });
      assert.equal(res.status, 503);
      const body = (await res.json()) as { code: string; error: string };
      assert.equal(body.code, 'catalog_unavailable');
      assert.match(body.error, /VOICES_CATALOG_URL/);
    } finally {
      catalog.setDown(false);
    }
    assert.equal((await speak('/v1/speak', { text: 'Still here.', voice_id: 'flite-slt', format: 'pcm' })).status, 200);
  });
});
