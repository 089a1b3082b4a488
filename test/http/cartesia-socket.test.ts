// Cartesia's TTS WebSocket (/tts/websocket), driven as their SDKs and LiveKit's Cartesia plugin drive it: contexts
// of text written word by word, raw audio in the asked encoding and rate, word timestamps, flush, cancel, errors.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { useService } from '../helpers/fixture.ts';
import { StreamClient, type StreamMsg } from '../helpers/ws-client.ts';

interface CartesiaMsg {
  type: string;
  context_id?: string;
  data?: string;
  done?: boolean;
  status_code?: number;
  step_time?: number;
  flush_id?: number;
  flush_done?: boolean;
  error?: string;
  error_code?: string;
  title?: string;
  message?: string;
  word_timestamps?: { words: string[]; start: number[]; end: number[] };
}

// espeak reports word timings.
const VOICE = 'espeak-en-us-female-1';
const s = useService({ user: 'cartesia@example.com' });

const url = (query = ''): string => `${s.base.replace('http', 'ws')}/tts/websocket${query}`;
// Generous: a bound about hangs, not speed (a shared, loaded machine can take a minute for a first synthesis).
const WAIT_MS = 300_000;
const open = (headers: Record<string, string> = { 'X-API-Key': s.key, 'Cartesia-Version': '2025-04-16' }) =>
  StreamClient.open(url(), { ws: { headers }, timeoutMs: WAIT_MS });
const msgs = (c: StreamClient): CartesiaMsg[] => c.messages as unknown as CartesiaMsg[];
const until = async (c: StreamClient, pred: (m: CartesiaMsg) => boolean, from = 0): Promise<CartesiaMsg> =>
  (await c.until(pred as unknown as (m: StreamMsg) => boolean, from)) as unknown as CartesiaMsg;
const doneOf = (id: string) => (m: CartesiaMsg) => m.context_id === id && (m.type === 'done' || m.type === 'error');

function request(contextId: string, transcript: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model_id: 'sonic-3',
    transcript,
    voice: { mode: 'id', id: VOICE },
    language: 'en',
    context_id: contextId,
    output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 16000 },
    max_buffer_delay_ms: 0,
    ...extra,
  };
}

/** The context's audio bytes, in order. */
function audioOf(c: StreamClient, id: string): Buffer {
  return Buffer.concat(
    msgs(c)
      .filter((m) => m.type === 'chunk' && m.context_id === id)
      .map((m) => Buffer.from(m.data ?? '', 'base64')),
  );
}

function pcm16(bytes: Buffer): Int16Array {
  assert.equal(bytes.length % 2, 0, 'whole 16-bit samples');
  return new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
}

function f32(bytes: Buffer): Float32Array {
  assert.equal(bytes.length % 4, 0, 'whole float32 samples');
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
}

/** G.711 mu-law byte to a linear sample (ITU-T G.711). */
function mulaw(byte: number): number {
  const u = ~byte & 0xff;
  const magnitude = ((((u & 0x0f) << 3) + 0x84) << ((u & 0x70) >> 4)) - 0x84;
  return u & 0x80 ? -magnitude : magnitude;
}

/** G.711 A-law byte to a linear sample. */
function alaw(byte: number): number {
  const a = byte ^ 0x55;
  const exponent = (a & 0x70) >> 4;
  let magnitude = (a & 0x0f) << 4;
  magnitude = exponent === 0 ? magnitude + 8 : (magnitude + 0x108) << (exponent - 1);
  return a & 0x80 ? magnitude : -magnitude;
}

function rms(samples: ArrayLike<number>, scale: number): number {
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += (samples[i] / scale) ** 2;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

const words = (text: string): string[] =>
  text
    .split(/\s+/)
    .filter((w) => /\w/.test(w))
    .map((w) => w.replace(/[^\w']/g, ''));

/** Speaks `text` whole in a context and returns its audio bytes. */
async function whole(c: StreamClient, id: string, text: string, output: Record<string, unknown>): Promise<Buffer> {
  c.send(request(id, text, { output_format: { container: 'raw', ...output } }));
  const end = await until(c, doneOf(id));
  assert.equal(end.type, 'done', JSON.stringify(end));
  return audioOf(c, id);
}

describe('Cartesia /tts/websocket', () => {
  test('word by word as LiveKit sends it: audio before the last word, 16-bit PCM at 16 kHz, timestamps of every word, done', async () => {
    const c = await open();
    const text = 'The first sentence is here. The second one follows it closely, and then it ends.';
    const pieces = text.split(/(?=\s)/);
    let sentAtFirstAudio = -1;
    for (let i = 0; i < pieces.length; i++) {
      c.send(request('turn-1', pieces[i], { continue: true, add_timestamps: true }));
      if (sentAtFirstAudio < 0 && pieces.slice(0, i).join('').includes('here. ')) {
        await until(c, (m) => m.type === 'chunk' && m.context_id === 'turn-1');
        sentAtFirstAudio = i + 1;
      }
    }
    c.send(request('turn-1', ' ', { continue: false, add_timestamps: true }));
    const done = await until(c, doneOf('turn-1'));
    assert.deepEqual(done, { type: 'done', context_id: 'turn-1', done: true, status_code: 200 });
    assert.ok(sentAtFirstAudio > 0 && sentAtFirstAudio < pieces.length, `first audio after ${sentAtFirstAudio} of ${pieces.length} pieces`);

    for (const m of msgs(c).filter((x) => x.type === 'chunk')) {
      assert.equal(m.done, false);
      assert.equal(m.status_code, 206);
      assert.equal(typeof m.step_time, 'number');
    }
    const samples = pcm16(audioOf(c, 'turn-1'));
    assert.ok(rms(samples, 32768) > 0.01, 'not silence');
    // The same text at 24 kHz float32: the 16 kHz stream has two thirds as many samples.
    const reference = f32(await whole(c, 'ref', text, { encoding: 'pcm_f32le', sample_rate: 24000 }));
    const ratio = samples.length / reference.length;
    assert.ok(Math.abs(ratio - 2 / 3) < 0.05, `16 kHz / 24 kHz samples ${ratio}`);

    const stamps = msgs(c).filter((m) => m.type === 'timestamps' && m.context_id === 'turn-1');
    const timed = stamps.flatMap((m) => m.word_timestamps?.words ?? []);
    assert.deepEqual(
      timed.map((w) => w.replace(/[^\w']/g, '')),
      words(text),
    );
    const starts = stamps.flatMap((m) => m.word_timestamps?.start ?? []);
    const ends = stamps.flatMap((m) => m.word_timestamps?.end ?? []);
    for (let i = 1; i < starts.length; i++) assert.ok(starts[i] >= starts[i - 1], `word ${i} in order`);
    assert.ok(ends[ends.length - 1] <= samples.length / 16000 + 0.01, 'inside the audio');
    assert.ok(starts[starts.length - 1] > 2, 'the second sentence’s words are on the context’s timeline');
    c.close();
  });

  test('every raw encoding at its asked rate: float32, 16-bit, mu-law and A-law', async () => {
    const c = await open();
    const text = 'Counting the samples of every encoding.';
    const reference = f32(await whole(c, 'f32-24k', text, { encoding: 'pcm_f32le', sample_rate: 24000 }));
    assert.ok(rms(reference, 1) > 0.01);
    const cases = [
      { encoding: 'pcm_f32le', rate: 44100, decode: (b: Buffer) => Array.from(f32(b)), scale: 1 },
      { encoding: 'pcm_s16le', rate: 8000, decode: (b: Buffer) => Array.from(pcm16(b)), scale: 32768 },
      { encoding: 'pcm_mulaw', rate: 8000, decode: (b: Buffer) => Array.from(b, mulaw), scale: 32768 },
      { encoding: 'pcm_alaw', rate: 16000, decode: (b: Buffer) => Array.from(b, alaw), scale: 32768 },
    ];
    for (const { encoding, rate, decode, scale } of cases) {
      const samples = decode(await whole(c, `${encoding}-${rate}`, text, { encoding, sample_rate: rate }));
      const expected = (reference.length * rate) / 24000;
      assert.ok(Math.abs(samples.length / expected - 1) < 0.05, `${encoding} ${rate}: ${samples.length} samples, ~${expected} expected`);
      assert.ok(rms(samples, scale) > 0.01, `${encoding}: not silence`);
    }
    c.close();
  });

  test('flush: flush_done after the audio of what came before it, flush_id on the chunks; an OpenAI voice name works', async () => {
    const c = await open();
    c.send(request('f', 'Stay hungry, ', { continue: true, voice: { mode: 'id', id: 'alloy' } }));
    c.send(request('f', '', { continue: true, flush: true, voice: { mode: 'id', id: 'alloy' } }));
    c.send(request('f', 'stay foolish.', { continue: true, voice: { mode: 'id', id: 'alloy' } }));
    c.send(request('f', '', { continue: false, voice: { mode: 'id', id: 'alloy' } }));
    await until(c, doneOf('f'));
    const of = msgs(c).filter((m) => m.context_id === 'f');
    const flushAt = of.findIndex((m) => m.type === 'flush_done');
    assert.ok(flushAt > 0, JSON.stringify(of.map((m) => m.type)));
    assert.deepEqual(of[flushAt], { type: 'flush_done', context_id: 'f', flush_id: 1, flush_done: true, done: false, status_code: 206 });
    const before = of.slice(0, flushAt).filter((m) => m.type === 'chunk');
    const after = of.slice(flushAt).filter((m) => m.type === 'chunk');
    assert.ok(before.length > 0 && after.length > 0, 'audio on both sides of the flush');
    assert.ok(before.every((m) => m.flush_id === 1) && after.every((m) => m.flush_id === 2));
    assert.equal(of[of.length - 1].type, 'done');
    c.close();
  });

  test('cancel stops a context at once; the socket and the next context go on', async () => {
    const c = await open();
    const long = Array.from({ length: 12 }, (_, i) => `This is sentence number ${i + 1} of a long reply.`).join(' ');
    c.send(request('talk', long, { continue: true }));
    await until(c, (m) => m.type === 'chunk' && m.context_id === 'talk');
    c.send({ context_id: 'talk', cancel: true });
    // Answered in order after the cancel: an error for a frame that is not a message marks where the cancel landed.
    c.send({ context_id: 'marker' });
    const marker = await until(c, (m) => m.type === 'error' && m.context_id === 'marker');
    const at = msgs(c).indexOf(marker);
    c.send(request('next', 'And the next reply plays.'));
    await until(c, doneOf('next'));
    const after = msgs(c).slice(at);
    assert.equal(after.filter((m) => m.context_id === 'talk').length, 0, 'nothing of the cancelled context after its cancel');
    assert.ok(audioOf(c, 'next').length > 0);
    const spoken = audioOf(c, 'talk').length / 2 / 16000;
    assert.ok(spoken < 20, `the cancelled context stopped early (${spoken} s of its audio)`);
    assert.equal(c.closed, null);
    c.close();
  });

  test('errors in Cartesia’s shape, with the context, and the socket stays open', async () => {
    const c = await open();
    c.send(request('bad-voice', 'Hello there.', { voice: { mode: 'id', id: 'no-such-voice' } }));
    const unknown = await until(c, (m) => m.type === 'error' && m.context_id === 'bad-voice');
    assert.equal(unknown.status_code, 404);
    assert.equal(unknown.done, true);
    assert.equal(unknown.error_code, 'voice_not_found');
    assert.match(unknown.error ?? '', /no-such-voice/);
    assert.equal(unknown.message, unknown.error);

    c.ws.send('not json');
    const notJson = await until(c, (m) => m.type === 'error' && m.error_code === 'bad_request');
    assert.equal(notJson.status_code, 400);

    const { output_format: _omitted, ...noFormat } = request('no-format', 'Hi.');
    c.send(noFormat);
    const missing = await until(c, (m) => m.type === 'error' && m.context_id === 'no-format');
    assert.equal(missing.status_code, 400);
    assert.match(missing.error ?? '', /output_format/);

    c.send(request('rate', 'Hi.', { output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 12345 } }));
    const rate = await until(c, (m) => m.type === 'error' && m.context_id === 'rate');
    assert.equal(rate.error_code, 'validation');

    c.send(request('ended', 'One.', { continue: false }));
    c.send(request('ended', 'Two.', { continue: true }));
    const late = await until(c, (m) => m.type === 'error' && m.context_id === 'ended');
    assert.match(late.error ?? '', /last input/);
    await until(c, doneOf('ended'));

    c.send(request('fine', 'Still here.'));
    assert.equal((await until(c, doneOf('fine'))).type, 'done');
    c.close();
  });

  test('the key: X-API-Key, Bearer or ?api_key; none, a wrong one or one without the speech scope is refused before the upgrade', async () => {
    for (const c of [
      await open({ Authorization: `Bearer ${s.key}` }),
      await StreamClient.open(url(`?api_key=${s.key}&cartesia_version=2025-04-16`), { timeoutMs: WAIT_MS }),
    ]) {
      c.send(request('k', 'Yes.'));
      assert.equal((await until(c, doneOf('k'))).type, 'done');
      c.close();
    }
    const refused = (headers: Record<string, string>, query = '') =>
      new Promise<{ status: number; code: string }>((resolve, reject) => {
        const ws = new WebSocket(url(query), { headers });
        ws.on('open', () => reject(new Error('upgraded')));
        ws.on('unexpected-response', (_req, res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, code: (JSON.parse(body) as { code: string }).code }));
        });
        ws.on('error', () => undefined);
      });
    assert.deepEqual(await refused({}), { status: 401, code: 'unauthorized' });
    assert.deepEqual(await refused({ 'X-API-Key': 'service_sk_wrong' }), { status: 401, code: 'unauthorized' });
    const res = await s.request('/api/auth/api-keys', {
      json: { name: 'voices only', scopes: ['voices'] },
      cookie: s.cookie,
      sameOrigin: true,
    });
    const { key } = (await res.json()) as { key: string };
    assert.deepEqual(await refused({ 'X-API-Key': key }), { status: 403, code: 'insufficient_scope' });
    // Without the Upgrade: a JSON error, not an empty 404.
    const plain = await s.request('/tts/websocket', { headers: { 'X-API-Key': s.key } });
    assert.equal(plain.status, 400);
    assert.match(((await plain.json()) as { error: string }).error, /WebSocket/);
  });
});
