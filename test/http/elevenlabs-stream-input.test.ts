// ElevenLabs' text-to-speech WebSockets, driven as their clients (LiveKit's and Pipecat's ElevenLabs TTS) drive them:
// the `ws` client on /v1/text-to-speech/{voice_id}/stream-input and /multi-stream-input, key in `xi-api-key`.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { ffmpegDecode, probe, SKIP_NO_FFMPEG, TempDir } from '../audio/ffmpeg.ts';
import { pcm16Samples } from '../audio/signals.ts';
import { useService } from '../helpers/fixture.ts';

const s = useService({ user: 'eleven-socket@example.com' });
const tmp = new TempDir();
after(() => tmp.remove());

// espeak times its words, so alignment follows the speech.
const VOICE = 'espeak-en-us-female-1';

interface Alignment {
  chars: string[];
  charStartTimesMs: number[];
  charDurationsMs: number[];
}
interface ElevenMsg {
  audio?: string;
  isFinal?: boolean | null;
  alignment?: Alignment;
  normalizedAlignment?: Alignment;
  contextId?: string;
  message?: string;
  error?: string;
  code?: number;
}

/** A socket that records every frame and its close, and waits for the next frame matching a predicate. */
class ElevenSocket {
  readonly messages: ElevenMsg[] = [];
  closed: { code: number; reason: string } | null = null;
  private waiters: Array<() => void> = [];

  constructor(readonly ws: WebSocket) {
    ws.on('message', (d) => {
      this.messages.push(JSON.parse(d.toString()) as ElevenMsg);
      this.wake();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.wake();
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  static async open(path: string, headers: Record<string, string> = { 'xi-api-key': s.key }): Promise<ElevenSocket> {
    const ws = new WebSocket(`${s.base.replace('http', 'ws')}${path}`, { headers });
    const socket = new ElevenSocket(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return socket;
  }

  send(m: unknown): void {
    this.ws.send(typeof m === 'string' ? m : JSON.stringify(m));
  }

  async until(pred: (m: ElevenMsg) => boolean, timeoutMs = 60_000): Promise<ElevenMsg> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(pred);
      if (found) return found;
      if (this.closed) throw new Error(`closed ${this.closed.code} ${this.closed.reason}`);
      if (Date.now() > deadline) throw new Error('timed out waiting for a message');
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 100);
      });
    }
  }

  async closedWithin(ms: number): Promise<{ code: number; reason: string } | null> {
    const deadline = Date.now() + ms;
    while (!this.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    return this.closed;
  }

  /** The audio bytes of the messages of a context (all when undefined), in order. */
  audio(contextId?: string): Buffer {
    return Buffer.concat(
      this.messages
        .filter((m) => m.audio !== undefined && (contextId === undefined || m.contextId === contextId))
        .map((m) => Buffer.from(m.audio ?? '', 'base64')),
    );
  }

  chars(contextId?: string): string {
    return this.messages
      .filter((m) => m.alignment && (contextId === undefined || m.contextId === contextId))
      .flatMap((m) => m.alignment?.chars ?? [])
      .join('');
  }
}

/** "The cat sat." → ["The ", "cat ", "sat. "]: words as LiveKit's plugin sends them, each ending with a space. */
function words(text: string): string[] {
  return text.split(' ').map((w) => `${w} `);
}

async function referenceSeconds(text: string, rate: number): Promise<number> {
  const res = await s.call('/v1/speak', { json: { text, voice_id: VOICE, format: 'pcm', sample_rate: rate } });
  assert.equal(res.status, 200);
  return pcm16Samples(new Uint8Array(await res.arrayBuffer())).length / rate;
}

/**
 * The upgrade's refusal: its HTTP status and JSON body, once the server has ended the connection (Node hands an
 * upgrade's socket over, so a refusal that left it open would hold the server's close for ever).
 */
async function refused(path: string, headers: Record<string, string>): Promise<{ status: number; body: { code?: string } }> {
  const ws = new WebSocket(`${s.base.replace('http', 'ws')}${path}`, { headers });
  return new Promise((resolve, reject) => {
    ws.once('open', () => reject(new Error('the upgrade was accepted')));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      const left = setTimeout(() => reject(new Error(`${path}: the server left the refused upgrade's connection open`)), 10_000);
      res.socket.once('close', () => {
        clearTimeout(left);
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as { code?: string } });
      });
    });
  });
}

const SENTENCES = ['The first sentence is here.', 'The second one follows it closely.', 'And the rest has no ending'];
const TEXT = SENTENCES.join(' ');

describe('stream-input: one context, as ElevenLabs clients speak it', () => {
  test('pcm_16000: audio before the last word, counted samples match the text spoken whole, alignment spells the text, isFinal ends', async () => {
    const reference = await referenceSeconds(TEXT, 16_000);
    const c = await ElevenSocket.open(`/v1/text-to-speech/${VOICE}/stream-input?model_id=eleven_flash_v2_5&output_format=pcm_16000`);
    c.send({
      text: ' ',
      voice_settings: { stability: 0.5, similarity_boost: 0.8, speed: 1 },
      generation_config: { chunk_length_schedule: [50, 90] },
    });
    const pieces = words(TEXT);
    // The word after the first sentence completes it.
    const completing = words(SENTENCES[0]).length;
    let sentAtFirstAudio = -1;
    for (let i = 0; i < pieces.length; i++) {
      c.send({ text: pieces[i], try_trigger_generation: false });
      if (i === completing) {
        await c.until((m) => m.audio !== undefined && m.audio !== '');
        sentAtFirstAudio = i + 1;
      }
    }
    assert.ok(sentAtFirstAudio > 0 && sentAtFirstAudio < pieces.length, `first audio after ${sentAtFirstAudio} of ${pieces.length} words`);
    c.send({ text: '' });
    const final = await c.until((m) => m.isFinal === true);
    assert.ok(!('audio' in final), 'the final message carries no audio');
    assert.equal(c.messages.at(-1), final, 'nothing after isFinal');
    assert.deepEqual(await c.closedWithin(30_000), { code: 1000, reason: 'end of input' });

    for (const m of c.messages.slice(0, -1)) assert.equal(m.isFinal, null);
    const bytes = c.audio();
    assert.equal(bytes.length % 2, 0);
    const seconds = pcm16Samples(bytes).length / 16_000;
    assert.ok(Math.abs(seconds - reference) / reference < 0.15, `${seconds} s streamed vs ${reference} s whole`);
    // The characters of every message, joined, are the text sent (the opening's space is not text).
    assert.equal(c.chars(), pieces.join(''));
    const normalized = c.messages.flatMap((m) => m.normalizedAlignment?.chars ?? []).join('');
    assert.equal(normalized, pieces.join(''));
    for (const m of c.messages.filter((x) => x.alignment)) {
      const a = m.alignment as Alignment;
      assert.equal(a.charStartTimesMs.length, a.chars.length);
      assert.equal(a.charDurationsMs.length, a.chars.length);
      const audioMs = (Buffer.from(m.audio ?? '', 'base64').length / 2 / 16_000) * 1000;
      // Times count from the start of this message's audio, where its first character starts (a word may run on
      // into the next message's audio).
      assert.ok(a.charStartTimesMs[0] <= audioMs + 1, 'the first character starts in the message’s own audio');
      for (let i = 0; i < a.chars.length; i++) {
        assert.ok(a.charStartTimesMs[i] >= 0 && a.charDurationsMs[i] >= 0);
        if (i > 0) assert.ok(a.charStartTimesMs[i] >= a.charStartTimesMs[i - 1], 'in order');
      }
    }
  });

  test(
    'mp3 by default (their mp3_44100_128), decoded: the speech of the text; flush speaks without ending the input',
    { skip: SKIP_NO_FFMPEG },
    async () => {
      const text = 'A short reply without an end';
      const reference = await referenceSeconds(text, 24_000);
      const c = await ElevenSocket.open(`/v1/text-to-speech/${VOICE}/stream-input`);
      c.send({ text: ' ' });
      for (const w of words(text)) c.send({ text: w });
      c.send({ text: ' ', flush: true });
      await c.until((m) => m.audio !== undefined && m.audio !== '');
      // The flush ends no input: the socket stays open for more.
      assert.equal(await c.closedWithin(300), null);
      c.send({ text: '' });
      await c.until((m) => m.isFinal === true);
      const path = tmp.file('stream-input.mp3', c.audio());
      const info = probe(path);
      assert.equal(info.codec, 'mp3');
      assert.equal(info.sampleRate, 44_100);
      const seconds = ffmpegDecode(path).length / info.sampleRate;
      assert.ok(Math.abs(seconds - reference) < 0.3, `${seconds} s vs ${reference} s`);
    },
  );

  test('the key in the first message (xi_api_key or xi-api-key) or the authorization query; an OpenAI voice name', async () => {
    for (const [path, first] of [
      [`/v1/text-to-speech/${VOICE}/stream-input?output_format=pcm_22050`, { text: ' ', xi_api_key: s.key }],
      [`/v1/text-to-speech/alloy/stream-input?output_format=ulaw_8000`, { text: ' ', 'xi-api-key': s.key }],
      [
        `/v1/text-to-speech/${VOICE}/stream-input?output_format=pcm_24000&authorization=${encodeURIComponent(`Bearer ${s.key}`)}`,
        { text: ' ' },
      ],
    ] as const) {
      const c = await ElevenSocket.open(path, {});
      c.send(first);
      c.send({ text: 'Hello there. ' });
      c.send({ text: '' });
      await c.until((m) => m.isFinal === true);
      assert.ok(c.audio().length > 2000, `${path}: audio`);
      assert.equal(c.chars(), 'Hello there. ');
    }
  });
});

describe('stream-input: refusals in their error shape, then a close with the reason', () => {
  const expectError = async (c: ElevenSocket, error: string, code = 1008) => {
    const m = await c.until((x) => x.error !== undefined).catch(() => c.messages.find((x) => x.error !== undefined));
    assert.ok(m, 'an error message came before the close');
    assert.equal(m.error, error);
    assert.equal(m.code, code);
    assert.equal(typeof m.message, 'string');
    const closed = await c.closedWithin(30_000);
    assert.equal(closed?.code, code);
    assert.ok((closed?.reason ?? '').length > 0, 'the close says why');
  };

  test('an unknown voice', async () => {
    const c = await ElevenSocket.open('/v1/text-to-speech/no-such-voice/stream-input');
    c.send({ text: ' ' });
    await expectError(c, 'voice_not_found');
  });

  test('a frame that is not their message, and an unsupported output_format', async () => {
    const c = await ElevenSocket.open(`/v1/text-to-speech/${VOICE}/stream-input`);
    c.send('{not json');
    await expectError(c, 'invalid_input_message');
    const d = await ElevenSocket.open(`/v1/text-to-speech/${VOICE}/stream-input`);
    d.send({ text: ' ' });
    d.send({ text: 42 });
    await expectError(d, 'invalid_input_message');
    const f = await ElevenSocket.open(`/v1/text-to-speech/${VOICE}/stream-input?output_format=pcm_11025`);
    await expectError(f, 'invalid_request');
  });

  test('a bad key: refused at the upgrade in the header, an error frame in the first message; no key at all', async () => {
    const header = await refused(`/v1/text-to-speech/${VOICE}/stream-input`, { 'xi-api-key': 'service_sk_wrong' });
    assert.equal(header.status, 401);
    assert.equal(header.body.code, 'unauthorized');
    const query = await refused(`/v1/text-to-speech/${VOICE}/multi-stream-input?authorization=Bearer%20service_sk_wrong`, {});
    assert.equal(query.status, 401);
    const inMessage = await ElevenSocket.open(`/v1/text-to-speech/${VOICE}/stream-input`, {});
    inMessage.send({ text: ' ', xi_api_key: 'service_sk_wrong' });
    await expectError(inMessage, 'unauthorized');
    const none = await ElevenSocket.open(`/v1/text-to-speech/${VOICE}/multi-stream-input`, {});
    none.send({ text: ' ', context_id: 'a' });
    await expectError(none, 'unauthorized');
  });

  test('a key without the speech scope', async () => {
    const made = await s.call('/api/auth/api-keys', { json: { name: 'voices only', scopes: ['voices'] } });
    assert.equal(made.status, 201);
    const { key } = (await made.json()) as { key: string };
    const header = await refused(`/v1/text-to-speech/${VOICE}/stream-input`, { 'xi-api-key': key });
    assert.equal(header.status, 403);
    assert.equal(header.body.code, 'insufficient_scope');
    const c = await ElevenSocket.open(`/v1/text-to-speech/${VOICE}/stream-input`, {});
    c.send({ text: ' ', xi_api_key: key });
    await expectError(c, 'insufficient_scope');
  });

  test('inactivity_timeout: " " keeps the socket open; silence closes it with their input_timeout_exceeded', async () => {
    const c = await ElevenSocket.open(`/v1/text-to-speech/${VOICE}/stream-input?inactivity_timeout=1`);
    c.send({ text: ' ' });
    for (let i = 0; i < 6; i++) {
      await new Promise((r) => setTimeout(r, 250));
      c.send({ text: ' ' });
    }
    assert.equal(c.closed, null, 'kept open by spaces');
    await expectError(c, 'input_timeout_exceeded');
    const bad = await ElevenSocket.open(`/v1/text-to-speech/${VOICE}/stream-input?inactivity_timeout=181`);
    await expectError(bad, 'invalid_request');
  });
});

describe('multi-stream-input: contexts', () => {
  const MULTI = `/v1/text-to-speech/${VOICE}/multi-stream-input?output_format=pcm_24000&sync_alignment=true&auto_mode=true&inactivity_timeout=60`;
  const audible = (c: ElevenSocket, id: string) => c.until((m) => m.contextId === id && m.audio !== undefined && m.audio !== '');
  const finalOf = (c: ElevenSocket, id: string) => c.until((m) => m.contextId === id && m.isFinal === true);

  test('two contexts interleaved (context_id and contextId), each its own audio and alignment; close_context ends each with isFinal', async () => {
    const c = await ElevenSocket.open(MULTI);
    const a = 'Good morning to you. How are you today';
    const b = 'This is the other speaker. It talks as well';
    c.send({ text: ' ', context_id: 'a', voice_settings: { speed: 1 } });
    c.send({ text: ' ', contextId: 'b' });
    const wa = words(a);
    const wb = words(b);
    for (let i = 0; i < Math.max(wa.length, wb.length); i++) {
      if (i < wa.length) c.send({ text: wa[i], context_id: 'a' });
      if (i < wb.length) c.send({ text: wb[i], contextId: 'b' });
    }
    // LiveKit's ending: an empty flushed text, then close_context.
    for (const id of ['a', 'b']) {
      c.send({ text: '', context_id: id, flush: true });
      c.send({ context_id: id, close_context: true });
    }
    await finalOf(c, 'a');
    await finalOf(c, 'b');
    for (const [id, text] of [
      ['a', a],
      ['b', b],
    ] as const) {
      const seconds = pcm16Samples(c.audio(id)).length / 24_000;
      const reference = await referenceSeconds(text, 24_000);
      assert.ok(Math.abs(seconds - reference) / reference < 0.15, `${id}: ${seconds} s vs ${reference} s`);
      assert.equal(c.chars(id), `${text} `);
    }
    const order = c.messages.filter((m) => m.audio).map((m) => m.contextId);
    assert.ok(order.indexOf('b') < order.lastIndexOf('a'), `contexts alternate between sentences: ${order.join(',')}`);
    assert.ok(c.messages.every((m) => m.contextId === 'a' || m.contextId === 'b'));
    assert.equal(c.closed, null, 'the socket stays open');
    c.send({ close_socket: true });
    assert.equal((await c.closedWithin(30_000))?.code, 1000);
  });

  test('far past five contexts: interrupted ones are freed at once, 100 open and close, the socket lives', async () => {
    const c = await ElevenSocket.open(MULTI);
    // Ten replies under way at once (text held, sentences queued), then all interrupted.
    for (let i = 0; i < 10; i++) {
      c.send({ text: ' ', context_id: `r${i}` });
      c.send({ text: 'A reply that is interrupted. It would go on and on. ', context_id: `r${i}` });
    }
    await audible(c, 'r0');
    for (let i = 0; i < 10; i++) c.send({ context_id: `r${i}`, close_context: true });
    for (let i = 0; i < 10; i++) await finalOf(c, `r${i}`);
    const finalAt = c.messages.length;
    // The same id opens a new context at once.
    c.send({ text: ' ', context_id: 'r0' });
    c.send({ text: 'Reopened. ', context_id: 'r0', flush: true });
    for (let i = 0; i < 100; i++) {
      c.send({ text: ' ', context_id: `k${i}` });
      c.send({ context_id: `k${i}`, close_context: true });
    }
    for (let i = 0; i < 100; i++) await finalOf(c, `k${i}`);
    c.send({ context_id: 'r0', close_context: true });
    await c.until((m, i = c.messages.indexOf(m)) => i >= finalAt && m.contextId === 'r0' && m.isFinal === true);
    const reopened = c.messages.slice(finalAt).filter((m) => m.contextId === 'r0' && m.alignment);
    assert.equal(reopened.flatMap((m) => m.alignment?.chars ?? []).join(''), 'Reopened. ');
    // Nothing of the interrupted replies came after their isFinal.
    for (let i = 1; i < 10; i++) {
      const at = c.messages.findIndex((m) => m.contextId === `r${i}` && m.isFinal === true);
      assert.ok(
        c.messages.slice(at + 1).every((m) => m.contextId !== `r${i}`),
        `r${i} silent after its isFinal`,
      );
    }
    assert.equal(c.closed, null);
    assert.ok(
      c.messages.every((m) => m.error === undefined),
      'no error',
    );
  });

  test(`the bound: 64 contexts holding text; the next gets max_active_conversations and the socket stays; a closed one makes room`, async () => {
    const c = await ElevenSocket.open(MULTI);
    for (let i = 0; i < 64; i++) c.send({ text: 'Held without an end', context_id: `h${i}` });
    c.send({ text: 'One too many', context_id: 'extra' });
    const refusal = await c.until((m) => m.error !== undefined);
    assert.equal(refusal.error, 'max_active_conversations');
    assert.equal(refusal.contextId, 'extra');
    assert.equal(await c.closedWithin(200), null);
    c.send({ context_id: 'h0', close_context: true });
    await finalOf(c, 'h0');
    c.send({ text: 'Now there is room. ', context_id: 'extra', flush: true });
    await audible(c, 'extra');
    // Contexts that hold nothing do not count: opened and left alone, they are forgotten when room is needed.
    const d = await ElevenSocket.open(MULTI);
    for (let i = 0; i < 80; i++) d.send({ text: ' ', context_id: `idle${i}` });
    d.send({ text: 'Still room. ', context_id: 'late', flush: true });
    await audible(d, 'late');
    assert.ok(d.messages.every((m) => m.error === undefined));
  });

  test('an empty text keeps a context alive; close_socket speaks what is flushed and closes', async () => {
    const c = await ElevenSocket.open(MULTI);
    c.send({ text: ' ', context_id: 'k' });
    c.send({ text: 'Kept alive. ', context_id: 'k' });
    c.send({ text: '', context_id: 'k' });
    c.send({ text: 'Still the same one', context_id: 'k', flush: true });
    c.send({ close_socket: true });
    await finalOf(c, 'k');
    assert.equal((await c.closedWithin(30_000))?.code, 1000);
    assert.equal(c.chars('k'), 'Kept alive. Still the same one');
  });
});
