// Deepgram's text-to-speech on /v1/speak, driven as their SDK and LiveKit's Deepgram plugin drive it: the WebSocket
// (Speak, Flush, Clear, Close; binary audio) and their plain HTTP request, beside our own POST /v1/speak.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { useService } from '../helpers/fixture.ts';

interface DgMsg {
  type: string;
  sequence_id?: number;
  request_id?: string;
  model_name?: string;
  model_uuid?: string;
  description?: string;
  code?: string;
  warn_msg?: string;
}

/** Every frame in order: JSON messages, and binary audio as Buffers. */
class DgClient {
  readonly frames: Array<DgMsg | Buffer> = [];
  closed: { code: number; reason: string } | null = null;
  private waiters: Array<() => void> = [];

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      this.frames.push(isBinary ? Buffer.from(data as Buffer) : (JSON.parse(data.toString()) as DgMsg));
      for (const w of this.waiters.splice(0)) w();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      for (const w of this.waiters.splice(0)) w();
    });
  }

  static async open(url: string, headers: Record<string, string>, protocols?: string[]): Promise<DgClient> {
    const ws = new WebSocket(url, protocols, { headers });
    const client = new DgClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return client;
  }

  send(m: unknown): void {
    this.ws.send(JSON.stringify(m));
  }

  /** The index of the first frame from `from` on that matches (a bound about hangs: a loaded machine is slow). */
  async until(pred: (f: DgMsg | Buffer) => boolean, from = 0): Promise<number> {
    const deadline = Date.now() + 300_000;
    for (;;) {
      const at = this.frames.findIndex((f, i) => i >= from && pred(f));
      if (at >= 0) return at;
      if (this.closed) throw new Error(`closed ${this.closed.code} ${this.closed.reason}`);
      if (Date.now() > deadline) throw new Error('timed out waiting for a frame');
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 100);
      });
    }
  }

  audio(from = 0, to = this.frames.length): Buffer {
    return Buffer.concat(this.frames.slice(from, to).filter((f): f is Buffer => Buffer.isBuffer(f)));
  }
}

const isType = (type: string) => (f: DgMsg | Buffer) => !Buffer.isBuffer(f) && f.type === type;
const isAudio = (f: DgMsg | Buffer) => Buffer.isBuffer(f);

const s = useService({ user: 'deepgram@example.com' });
const wsUrl = (query: string): string => `${s.base.replace('http', 'ws')}/v1/speak?${query}`;
const open = (query = 'model=aura-2-andromeda-en&encoding=linear16&sample_rate=24000') =>
  DgClient.open(wsUrl(query), { Authorization: `Token ${s.key}` });

function pcm16(bytes: Buffer): Int16Array {
  assert.equal(bytes.length % 2, 0, 'whole 16-bit samples');
  return new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
}

function rms(samples: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += (samples[i] / 32768) ** 2;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

/** G.711 mu-law byte to a linear sample (ITU-T G.711). */
function mulaw(byte: number): number {
  const u = ~byte & 0xff;
  const magnitude = ((((u & 0x0f) << 3) + 0x84) << ((u & 0x70) >> 4)) - 0x84;
  return u & 0x80 ? -magnitude : magnitude;
}

/** The HTTP answer to a WebSocket upgrade that is refused. */
function refused(url: string, headers: Record<string, string>): Promise<{ status: number; code: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => reject(new Error('upgraded')));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, code: (JSON.parse(body) as { code: string }).code }));
    });
    ws.on('error', () => undefined);
  });
}

const TEXT = 'The first sentence is here. The second one follows it closely.';

describe('Deepgram /v1/speak WebSocket', () => {
  test('Metadata, then sentences as LiveKit sends them: audio before the Flush, 16-bit PCM, Flushed after the audio', async () => {
    const c = await open();
    const meta = c.frames[await c.until(isType('Metadata'))] as DgMsg;
    assert.equal(meta.model_name, 'aura-2-andromeda-en');
    assert.match(meta.request_id ?? '', /^[0-9a-f-]{36}$/);
    assert.match(meta.model_uuid ?? '', /^[0-9a-f-]{36}$/);
    const [first, second] = TEXT.split(/(?<=\.) /);
    c.send({ type: 'Speak', text: `${first} ` });
    c.send({ type: 'Speak', text: 'The ' });
    await c.until(isAudio);
    c.send({ type: 'Speak', text: `${second.slice(4)} ` });
    c.send({ type: 'Flush' });
    const flushed = await c.until(isType('Flushed'));
    assert.deepEqual(c.frames[flushed], { type: 'Flushed', sequence_id: 0 });
    const samples = pcm16(c.audio(0, flushed));
    assert.ok(rms(samples) > 0.01, 'not silence');
    assert.ok(samples.length / 24000 > 2, `${samples.length / 24000} s for two sentences`);
    assert.equal(c.audio(flushed).length, 0, 'no audio after its Flushed');

    // mu-law at 8 kHz: one byte a sample, a third as many samples.
    const g = await open('model=aura-2-andromeda-en&encoding=mulaw&sample_rate=8000');
    g.send({ type: 'Speak', text: TEXT });
    g.send({ type: 'Flush' });
    const end = await g.until(isType('Flushed'));
    const law = Array.from(g.audio(0, end), mulaw);
    const ratio = law.length / samples.length;
    assert.ok(Math.abs(ratio - 1 / 3) < 0.02, `8 kHz / 24 kHz samples ${ratio}`);
    assert.ok(rms(law) > 0.01);
    c.ws.close();
    g.ws.close();
  });

  test('Clear stops the audio at once and Cleared answers; the socket speaks the next text; Close closes once spoken', async () => {
    const c = await open();
    const long = Array.from({ length: 12 }, (_, i) => `This is sentence number ${i + 1} of a long reply.`).join(' ');
    c.send({ type: 'Speak', text: long });
    await c.until(isAudio);
    c.send({ type: 'Clear' });
    // A frame that is not a message marks, by its Warning, a point the server reached after the Clear.
    c.send({ type: 'Nonsense' });
    const cleared = await c.until(isType('Cleared'));
    const warning = await c.until(isType('Warning'), cleared);
    assert.equal(c.audio(cleared, warning).length, 0, 'no audio after Cleared');
    assert.equal((c.frames[warning] as DgMsg).code, 'bad_request');
    assert.ok(c.audio(0, cleared).length / 2 / 24000 < 20, 'cut short');

    c.send({ type: 'Speak', text: 'And the next reply plays.' });
    c.send({ type: 'Flush' });
    c.send({ type: 'Close' });
    const flushed = await c.until(isType('Flushed'), warning);
    assert.ok(c.audio(warning, flushed).length > 0);
    const sequence = (c.frames[cleared] as DgMsg).sequence_id ?? -1;
    assert.equal((c.frames[flushed] as DgMsg).sequence_id, sequence + 1);
    await new Promise<void>((r) => (c.closed ? r() : c.ws.once('close', () => r())));
    assert.equal(c.closed?.code, 1000);
  });

  test('bad messages get Warnings and the socket stays; a binary frame too', async () => {
    const c = await open();
    c.ws.send('not json');
    c.ws.send(Buffer.from([1, 2, 3]));
    c.send({ type: 'Speak' });
    const warnings = async (n: number) => {
      for (let i = 0, from = 0; i < n; i++) from = (await c.until(isType('Warning'), from)) + 1;
      return c.frames.filter(isType('Warning')) as DgMsg[];
    };
    const [notJson, binary, noText] = await warnings(3);
    assert.equal(notJson.code, 'bad_request');
    assert.equal(binary.code, 'bad_request');
    assert.equal(noText.code, 'validation');
    assert.match(noText.description ?? '', /text/);
    assert.equal(noText.warn_msg, noText.description);
    c.send({ type: 'Speak', text: 'Still here.' });
    c.send({ type: 'Flush' });
    const flushed = await c.until(isType('Flushed'));
    assert.ok(c.audio(0, flushed).length > 0);
    c.ws.close();
  });

  test('the key and the model are checked before the upgrade; Bearer and the browser subprotocol work', async () => {
    assert.deepEqual(await refused(wsUrl('model=aura-2-thalia-en'), {}), { status: 401, code: 'unauthorized' });
    assert.deepEqual(await refused(wsUrl('model=aura-2-thalia-en'), { Authorization: 'Token service_sk_wrong' }), {
      status: 401,
      code: 'unauthorized',
    });
    assert.deepEqual(await refused(wsUrl('model=no-such-voice'), { Authorization: `Token ${s.key}` }), {
      status: 404,
      code: 'voice_not_found',
    });
    assert.deepEqual(await refused(wsUrl('encoding=linear16&sample_rate=12345'), { Authorization: `Token ${s.key}` }), {
      status: 400,
      code: 'validation',
    });
    const res = await s.request('/api/auth/api-keys', {
      json: { name: 'voices only', scopes: ['voices'] },
      cookie: s.cookie,
      sameOrigin: true,
    });
    const { key } = (await res.json()) as { key: string };
    assert.deepEqual(await refused(wsUrl('model=aura-2-thalia-en'), { Authorization: `Token ${key}` }), {
      status: 403,
      code: 'insufficient_scope',
    });

    for (const c of [
      await DgClient.open(wsUrl('model=flite-slt'), { Authorization: `Bearer ${s.key}` }),
      await DgClient.open(wsUrl('model=aura-2-zeus-en'), {}, ['token', s.key]),
    ]) {
      assert.equal(c.ws.protocol === '' || c.ws.protocol === 'token', true);
      c.send({ type: 'Speak', text: 'Yes.' });
      c.send({ type: 'Flush' });
      const flushed = await c.until(isType('Flushed'));
      assert.ok(c.audio(0, flushed).length > 0);
      c.ws.close();
    }
  });
});

describe('POST /v1/speak: Deepgram’s request and ours, told apart by their shape', () => {
  test('Deepgram’s query and Token: raw linear16 at the asked rate, mu-law in WAV, MP3 by default; their headers', async () => {
    const dg = (query: string) =>
      fetch(`${s.base}/v1/speak?${query}`, {
        method: 'POST',
        headers: { Authorization: `Token ${s.key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: TEXT }),
      });
    const raw = await dg('model=aura-2-thalia-en&encoding=linear16&sample_rate=16000&container=none');
    assert.equal(raw.status, 200, await raw.clone().text());
    assert.equal(raw.headers.get('dg-model-name'), 'aura-2-thalia-en');
    assert.equal(raw.headers.get('dg-char-count'), String(TEXT.length));
    const pcm = pcm16(Buffer.from(await raw.arrayBuffer()));
    assert.ok(rms(pcm) > 0.01);
    assert.ok(pcm.length / 16000 > 2 && pcm.length / 16000 < 10, `${pcm.length / 16000} s`);

    const wav = Buffer.from(await (await dg('model=aura-2-thalia-en&encoding=mulaw&sample_rate=8000')).arrayBuffer());
    assert.equal(wav.subarray(0, 4).toString(), 'RIFF');
    assert.equal(wav.readUInt16LE(20), 7, 'mu-law WAV');
    assert.equal(wav.readUInt32LE(24), 8000);

    const mp3 = await dg('model=aura-2-thalia-en');
    assert.equal(mp3.headers.get('content-type'), 'audio/mpeg');
    assert.ok((await mp3.arrayBuffer()).byteLength > 1000);

    assert.equal((await dg('model=aura-2-thalia-en&encoding=aac')).status, 400);
    const noKey = await fetch(`${s.base}/v1/speak?model=aura-2-thalia-en`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: TEXT }),
    });
    assert.equal(noKey.status, 401);
  });

  test('ours is unchanged: a Bearer request without their query gets our format choice and headers', async () => {
    const res = await s.call('/v1/speak', { json: { text: 'Ours as before.', voice_id: 'flite-slt', format: 'wav', sample_rate: 16000 } });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(res.headers.get('x-voice-id'), 'flite-slt');
    assert.equal(res.headers.get('dg-model-name'), null);
    const wav = Buffer.from(await res.arrayBuffer());
    assert.equal(wav.readUInt32LE(24), 16000);
    // A GET without Upgrade is neither: a JSON error, not a hang or a 500.
    const get = await s.call('/v1/speak');
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    assert.equal(((await get.json()) as { code?: string }).code, 'method_not_allowed');
    // Our body's own fields are still checked as ours.
    assert.equal((await s.call('/v1/speak', { json: { text: 'x', format: 'nope' } })).status, 400);
  });
});
