// Piper and Kokoro voices from VOICES_DIR, driven through the real server with generated test models whose
// audio is a known function of their inputs (test/helpers/onnx-models.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { measurePitch } from '../../../src/audio/analysis.ts';
import {
  KOKORO_AMPLITUDE_DIVISOR,
  KOKORO_SAMPLES_PER_TOKEN,
  PIPER_AMPLITUDE_DIVISOR,
  PIPER_BASE_HZ,
  PIPER_HZ_PER_SPEAKER,
  PIPER_SAMPLES_PER_ID,
  TEST_PHONEME_ID_MAP,
  writeVoicesDir,
} from '../../helpers/onnx-models.ts';
import { startServer, type TestServer } from '../../helpers/server.ts';

const OUT_RATE = 24000;
let s: TestServer;
let key: string;
const dir = mkdtempSync(join(tmpdir(), 'voxsmith-voices-'));

before(async () => {
  writeVoicesDir(dir, { broken: true });
  // The test models write their inputs into the amplitude: the loudness stage must leave their level alone.
  s = await startServer({ env: { VOICES_DIR: dir, WORKERS: '1', LOUDNESS_TARGET_LUFS: 'off' } });
  ({ key } = await s.newKey('neural@example.com'));
});
after(async () => {
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

interface PublicVoice {
  id: string;
  name: string;
  engine: string;
  gender: string;
  language: string;
  description: string;
  tags: string[];
  parents?: string[];
}

async function pcm(body: Record<string, unknown>): Promise<Float32Array> {
  const res = await s.request('/v1/speak', { json: { format: 'pcm', ...body }, bearer: key });
  assert.equal(res.status, 200, await res.clone().text());
  const bytes = new Uint8Array(await res.arrayBuffer());
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(bytes.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = view.getInt16(i * 2, true) / 32768;
  // Every response starts with a few ms of digital silence; the model's audio is what follows.
  let start = 0;
  while (start < out.length && out[start] === 0) start++;
  return out.subarray(start);
}

/** Peak amplitude of the middle half (a pure sine: its RMS x sqrt 2). */
function amplitude(x: Float32Array): number {
  const mid = x.subarray(Math.floor(x.length / 4), Math.floor((3 * x.length) / 4));
  let sum = 0;
  for (const v of mid) sum += v * v;
  return Math.sqrt((2 * sum) / mid.length);
}

/** Piper's ids for an IPA string, written out here independently of the engine: ^, _, (phoneme, _)..., $. */
function expectedPiperIds(ipa: string): number[] {
  const ids = [...TEST_PHONEME_ID_MAP['^'], ...TEST_PHONEME_ID_MAP._];
  for (const p of ipa.normalize('NFD')) ids.push(...TEST_PHONEME_ID_MAP[p], ...TEST_PHONEME_ID_MAP._);
  return [...ids, ...TEST_PHONEME_ID_MAP.$];
}

// espeak-ng en-us: "Hello world." is h ə l ˈ o ʊ, w ˈ ɜ ː l d, and Piper keeps the full stop.
const HELLO = 'Hello world.';
const HELLO_IPA = 'həlˈoʊ wˈɜːld.';

describe('VOICES_DIR catalog', () => {
  test('Piper (one voice per speaker) and Kokoro voices are listed with metadata from their files', async () => {
    const res = await s.request('/api/voices?engine=piper');
    assert.equal(res.status, 200);
    const piper = ((await res.json()) as { voices: PublicVoice[] }).voices;
    assert.deepEqual(piper.map((v) => v.id).sort(), [
      'piper-en-us-chorus-low-ann',
      'piper-en-us-chorus-low-bob',
      'piper-en-us-chorus-low-cid',
      'piper-en-us-failing-medium',
      'piper-en-us-testset-medium',
    ]);
    const single = piper.find((v) => v.id === 'piper-en-us-testset-medium');
    assert.equal(single?.language, 'en-US');
    assert.match(single?.description ?? '', /testset.*medium quality/);
    const kokoro = ((await (await s.request('/api/voices?engine=kokoro')).json()) as { voices: PublicVoice[] }).voices;
    assert.deepEqual(kokoro.map((v) => [v.id, v.gender, v.language]).sort(), [
      ['kokoro-af-alpha', 'female', 'en-US'],
      ['kokoro-am-beta', 'male', 'en-US'],
      ['kokoro-bf-rows', 'female', 'en-GB'],
    ]);
    const one = await s.request('/api/voices/kokoro-af-alpha');
    assert.equal(one.status, 200);
    assert.equal(((await one.json()) as { voice: PublicVoice }).voice.engine, 'kokoro');
    const bad = await s.request('/api/voices?engine=wavenet');
    assert.equal(bad.status, 400);
  });

  test('broken files are skipped with one log line each naming the file and the reason', () => {
    const logs = s.logs.join('');
    assert.match(logs, /en_US-cut-medium\.onnx: truncated/);
    assert.match(logs, /en_US-lonely-medium\.onnx: no en_US-lonely-medium\.onnx\.json beside it/);
  });

  test('search finds them by "natural" and by dataset name', async () => {
    const natural = ((await (await s.request('/api/voices/search?q=natural')).json()) as { voices: PublicVoice[] }).voices;
    assert.ok(natural.some((v) => v.engine === 'piper') && natural.some((v) => v.engine === 'kokoro'));
    const chorus = ((await (await s.request('/api/voices/search?q=chorus')).json()) as { voices: PublicVoice[] }).voices;
    assert.equal(chorus[0]?.engine, 'piper');
    assert.match(chorus[0].id, /chorus/);
  });
});

describe('Piper through /v1/speak', () => {
  test('the ids that reach the model are the phoneme ids of the sentence, and the 441 Hz tone stays 441 Hz at 24 kHz', async () => {
    const ids = expectedPiperIds(HELLO_IPA);
    const x = await pcm({ text: HELLO, voice_id: 'piper-en-us-testset-medium' });
    // Length: one block of samples per id (count), resampled from 22 050 to 24 000 Hz.
    const expectedSamples = (ids.length * PIPER_SAMPLES_PER_ID * OUT_RATE) / 22050;
    assert.ok(Math.abs(x.length - expectedSamples) < 40, `${x.length} samples, expected ${expectedSamples}`);
    // Amplitude: the sum of the ids.
    const sum = ids.reduce((a, b) => a + b, 0);
    const measured = amplitude(x) * ids.length * PIPER_AMPLITUDE_DIVISOR;
    assert.ok(Math.abs(measured - sum) < 0.01 * sum, `id sum ${measured.toFixed(1)}, expected ${sum}`);
    const pitch = measurePitch(x, OUT_RATE).medianHz;
    assert.ok(Math.abs(pitch - PIPER_BASE_HZ) < 3, `pitch ${pitch}`);
  });

  test('speed divides the length scale', async () => {
    const normal = await pcm({ text: HELLO, voice_id: 'piper-en-us-testset-medium' });
    const fast = await pcm({ text: HELLO, voice_id: 'piper-en-us-testset-medium', speed: 2 });
    const ratio = normal.length / fast.length;
    assert.ok(Math.abs(ratio - 2) < 0.02, `length ratio ${ratio}`);
  });

  test('each speaker of a multi-speaker model sounds like itself', async () => {
    for (const [i, name] of ['ann', 'bob', 'cid'].entries()) {
      const x = await pcm({ text: HELLO, voice_id: `piper-en-us-chorus-low-${name}` });
      const pitch = measurePitch(x, OUT_RATE).medianHz;
      const want = PIPER_BASE_HZ - PIPER_HZ_PER_SPEAKER * i;
      assert.ok(Math.abs(pitch - want) < 3, `${name}: ${pitch} Hz, expected ${want}`);
    }
  });

  test('every format encodes it', async () => {
    for (const format of ['mp3', 'wav', 'opus', 'flac', 'mulaw']) {
      const res = await s.request('/v1/speak', { json: { text: HELLO, voice_id: 'piper-en-us-testset-medium', format }, bearer: key });
      assert.equal(res.status, 200, format);
      assert.ok((await res.arrayBuffer()).byteLength > 100, format);
    }
  });

  test('a model that fails at inference answers a JSON 5xx, and other voices keep working', async () => {
    const res = await s.request('/v1/speak', { json: { text: HELLO, voice_id: 'piper-en-us-failing-medium', format: 'wav' }, bearer: key });
    assert.ok(res.status >= 500 && res.status < 600, `status ${res.status}`);
    const body = (await res.json()) as { error?: unknown; request_id?: unknown };
    assert.equal(typeof body.error, 'string');
    assert.equal(typeof body.request_id, 'string');
    const x = await pcm({ text: HELLO, voice_id: 'piper-en-us-testset-medium' });
    assert.ok(x.length > 1000);
  });
});

describe('Kokoro', () => {
  test('tokens, style row and speed reach the model', async () => {
    // In misaki's symbols "həlˈO wˈɜɹld." (the diphthong oʊ is O, American ɜː is ɜɹ); Kokoro's vocabulary:
    // h 50, ə 83, l 54, ˈ 156, O 31, space 16, w 65, ɜ 87, ɹ 123, d 46, . 4; 0 pads both ends.
    const tokens = [50, 83, 54, 156, 31, 16, 65, 156, 87, 123, 54, 46, 4];
    const x = await pcm({ text: HELLO, voice_id: 'kokoro-af-alpha' });
    const padded = tokens.length + 2;
    assert.ok(Math.abs(x.length - padded * KOKORO_SAMPLES_PER_TOKEN) < 40, `${x.length} samples`);
    const sum = tokens.reduce((a, b) => a + b, 0);
    const measured = amplitude(x) * padded * KOKORO_AMPLITUDE_DIVISOR;
    assert.ok(Math.abs(measured - sum) < 0.01 * sum, `token sum ${measured.toFixed(1)}, expected ${sum}`);
    assert.ok(Math.abs(measurePitch(x, OUT_RATE).medianHz - 300) < 3);
    // bf_rows: row r gives 200 + r Hz, and the row is the phoneme-token count (British: h ə l ˈ əʊ ...).
    const rows = await pcm({ text: HELLO, voice_id: 'kokoro-bf-rows' });
    const rowHz = measurePitch(rows, OUT_RATE).medianHz;
    const rowTokens = Math.round(rows.length / KOKORO_SAMPLES_PER_TOKEN) - 2;
    assert.ok(Math.abs(rowHz - (200 + rowTokens)) < 3, `${rowHz} Hz for ${rowTokens} tokens`);
    const fast = await pcm({ text: HELLO, voice_id: 'kokoro-af-alpha', speed: 1.5 });
    assert.ok(Math.abs(x.length / fast.length - 1.5) < 0.02);
  });

  test('two Kokoro voices breed into a stored child whose style lies between its parents', async () => {
    const res = await s.request('/v1/forge/breed', {
      json: { parent_a: 'kokoro-af-alpha', parent_b: 'kokoro-am-beta', name: 'Mix', mutation_rate: 0.5, seed: 7 },
      bearer: key,
    });
    assert.equal(res.status, 201, await res.clone().text());
    const child = ((await res.json()) as { voice: PublicVoice & { genome: { style: { voices: string[]; weights: number[][] } } } }).voice;
    assert.deepEqual(child.parents, ['kokoro-af-alpha', 'kokoro-am-beta']);
    assert.equal(child.engine, 'kokoro');
    // Every dimension of the child's style is a convex blend of alpha (0.1) and beta (0.25).
    const { voices, weights } = child.genome.style;
    for (let i = 0; i < 256; i++) {
      const value = voices.reduce((acc, v, k) => acc + weights[k][i] * (v === 'af_alpha' ? 0.1 : 0.25), 0);
      assert.ok(value >= 0.1 - 1e-9 && value <= 0.25 + 1e-9, `dimension ${i}: ${value}`);
    }
    // And it is heard: its pitch (200 + 1000 x mean style) lies between the parents' 300 and 450 Hz.
    const x = await pcm({ text: HELLO, voice_id: child.id });
    const hz = measurePitch(x, OUT_RATE).medianHz;
    assert.ok(hz > 303 && hz < 447, `child pitch ${hz}`);
  });

  test('a Piper or Kokoro voice cannot be bred with a formant voice: a clear 400', async () => {
    for (const [a, b] of [
      ['piper-en-us-testset-medium', 'flite-slt'],
      ['kokoro-af-alpha', 'flite-slt'],
    ]) {
      const res = await s.request('/v1/forge/breed', { json: { parent_a: a, parent_b: b, name: 'No' }, bearer: key });
      assert.equal(res.status, 400);
      assert.match(((await res.json()) as { error: string }).error, /cannot be bred/);
    }
  });
});

describe('other doors', () => {
  test('the OpenAI endpoint speaks a neural voice by id, and tts-1-hd prefers one', async () => {
    const res = await s.request('/v1/audio/speech', {
      json: { model: 'tts-1', input: HELLO, voice: 'kokoro-af-alpha', response_format: 'pcm' },
      bearer: key,
    });
    assert.equal(res.status, 200);
    assert.ok((await res.arrayBuffer()).byteLength > 1000);
    const hd = await s.request('/v1/audio/speech', {
      json: { model: 'tts-1-hd', input: HELLO, voice: 'alloy', response_format: 'pcm' },
      bearer: key,
    });
    assert.equal(hd.status, 200);
    const bytes = new Uint8Array(await hd.arrayBuffer());
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const x = new Float32Array(bytes.length >> 1).map((_, i) => view.getInt16(i * 2, true) / 32768);
    // alloy is female: the first female neural English voice, kokoro's af_alpha (300 Hz).
    assert.ok(Math.abs(measurePitch(x, OUT_RATE).medianHz - 300) < 3);
  });

  test('the WebSocket stream speaks a neural voice', async () => {
    const ws = new WebSocket(`${s.base.replace('http', 'ws')}/v1/ws/stream?token=${encodeURIComponent(key)}`);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    let bytes = 0;
    const words: string[] = [];
    const done = new Promise<void>((resolve, reject) => {
      ws.on('message', (data) => {
        const msg = JSON.parse(data.toString()) as { type: string; audio?: string; words?: { word: string }[]; error?: string };
        if (msg.audio) bytes += Buffer.from(msg.audio, 'base64').length;
        if (msg.words) words.push(...msg.words.map((w) => w.word));
        if (msg.type === 'done') resolve();
        if (msg.type === 'error') reject(new Error(msg.error));
      });
    });
    ws.send(JSON.stringify({ type: 'synthesize', text: 'Hello world. Hello again.', voice_id: 'piper-en-us-testset-medium' }));
    await done;
    ws.close();
    assert.ok(bytes > 10000, `${bytes} bytes`);
    // Words are the spoken words (their offset/length point into the text; punctuation is not part of them).
    assert.deepEqual(words, ['Hello', 'world', 'Hello', 'again']);
  });

  test('on the stream, a failing model is an error message and a long stream cancels; the connection goes on', async () => {
    const ws = new WebSocket(`${s.base.replace('http', 'ws')}/v1/ws/stream?token=${encodeURIComponent(key)}`);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const seen: { type: string; id?: string; audio?: string; cancelled?: boolean; samples?: number }[] = [];
    let notify = (): void => {};
    ws.on('message', (data) => {
      seen.push(JSON.parse(data.toString()) as (typeof seen)[number]);
      notify();
    });
    const until = async (ok: (m: (typeof seen)[number]) => boolean): Promise<(typeof seen)[number]> => {
      for (;;) {
        const m = seen.find(ok);
        if (m) return m;
        await new Promise<void>((resolve) => (notify = resolve));
      }
    };
    ws.send(JSON.stringify({ type: 'synthesize', text: HELLO, id: 'bad', voice_id: 'piper-en-us-failing-medium' }));
    const failed = await until((m) => m.id === 'bad' && (m.type === 'error' || m.type === 'done'));
    assert.equal(failed.type, 'error', 'a model that fails at inference reports an error on the stream');
    const long = Array.from({ length: 40 }, (_, i) => `This is sentence ${i + 1}, which nobody will hear.`).join(' ');
    ws.send(JSON.stringify({ type: 'synthesize', text: long, id: 'long', voice_id: 'kokoro-am-beta' }));
    await until((m) => m.type === 'audio' && m.id === 'long');
    ws.send(JSON.stringify({ type: 'cancel' }));
    const done = await until((m) => m.type === 'done' && m.id === 'long');
    assert.equal(done.cancelled, true);
    ws.send(JSON.stringify({ type: 'synthesize', text: HELLO, id: 'next', voice_id: 'kokoro-am-beta' }));
    const next = await until((m) => m.type === 'done' && m.id === 'next');
    assert.ok((next.samples ?? 0) > 0);
    ws.close();
  });
});
