// Every front door to speech goes through the one speech service: a limit it applies refuses on all of them
// alike, and each door's request is metered and counted once.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { wavSampleCount } from '../audio/signals.ts';
import type { TestServer } from '../helpers/server.ts';
import { useService } from '../helpers/fixture.ts';

const LIMIT = 40;

const s = useService({ env: { MAX_TEXT_CHARS: String(LIMIT) } });

type StreamMessage = { type: string; error?: string; code?: string; audio?: string; samples?: number; cancelled?: boolean; id?: string };

/** One WebSocket connection: sends `messages` in order, collects every answer until `last` says it is over. */
async function overStream(
  key: string,
  messages: unknown[],
  last: (m: StreamMessage, all: StreamMessage[]) => boolean,
  onMessage?: (m: StreamMessage, ws: WebSocket) => void,
): Promise<StreamMessage[]> {
  const ws = new WebSocket(`${s.base.replace('http', 'ws')}/v1/ws/stream?token=${key}`);
  const received: StreamMessage[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => {
        for (const m of messages) ws.send(JSON.stringify(m));
      });
      ws.on('message', (data) => {
        const m = JSON.parse(data.toString()) as StreamMessage;
        received.push(m);
        onMessage?.(m, ws);
        if (last(m, received)) resolve();
      });
      ws.once('error', reject);
      ws.once('close', (code) => reject(new Error(`stream closed (${code}) before the answer was complete`)));
    });
  } finally {
    ws.close();
  }
  return received;
}

const speak = (key: string, body: Record<string, unknown>) => s.request('/v1/speak', { json: body, bearer: key });
const openai = (key: string, body: Record<string, unknown>) =>
  s.request('/v1/audio/speech', { json: { model: 'tts-1', voice: 'alloy', ...body }, bearer: key });

async function usageOf(cookie: string, keyId: string): Promise<{ characters: number; requests: number } | undefined> {
  const usage = (await (await s.request('/api/usage', { cookie })).json()) as {
    keys: Array<{ key_id: string; characters: number; requests: number }>;
  };
  const row = usage.keys.find((r) => r.key_id === keyId);
  return row && { characters: row.characters, requests: row.requests };
}

/** voxsmith_synthesis_requests_total for one endpoint (and outcome, if given), summed over engines. */
async function syntheses(endpoint: string, outcome?: string, server: TestServer = s): Promise<number> {
  const res = await server.request('/metrics');
  assert.equal(res.status, 200);
  let sum = 0;
  for (const line of (await res.text()).split('\n')) {
    if (
      line.startsWith('voxsmith_synthesis_requests_total{') &&
      line.includes(`endpoint="${endpoint}"`) &&
      (!outcome || line.includes(`outcome="${outcome}"`))
    ) {
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return sum;
}

describe('speech service: one set of rules for every door', () => {
  test('MAX_TEXT_CHARS refuses on /v1/speak, /v1/audio/speech and the WebSocket with the same code and message', async () => {
    const { key } = await s.newKey('limits@example.com');
    const over = 'a'.repeat(LIMIT + 1);
    const expected = `text is ${LIMIT + 1} characters; the limit is ${LIMIT}`;
    for (const res of [await speak(key, { text: over }), await openai(key, { input: over })]) {
      assert.equal(res.status, 413);
      const body = (await res.json()) as { error: string; code: string };
      assert.deepEqual({ error: body.error, code: body.code }, { error: expected, code: 'text_too_long' });
    }
    const [err] = await overStream(key, [{ type: 'synthesize', text: over, id: 'long' }], (m) => m.type === 'error');
    assert.deepEqual(err, { type: 'error', error: expected, code: 'text_too_long', id: 'long' });
  });

  test('text at the limit is spoken by all three doors', async () => {
    const { key } = await s.newKey('at-limit@example.com');
    const atLimit = 'Spoken at the limit by every door'.padEnd(LIMIT, '.');
    assert.equal(atLimit.length, LIMIT);
    const a = await speak(key, { text: atLimit, format: 'wav' });
    assert.equal(a.status, 200);
    assert.ok(wavSampleCount(new Uint8Array(await a.arrayBuffer())) > 0);
    const b = await openai(key, { input: atLimit, response_format: 'wav' });
    assert.equal(b.status, 200);
    assert.ok(wavSampleCount(new Uint8Array(await b.arrayBuffer())) > 0);
    const messages = await overStream(key, [{ type: 'synthesize', text: atLimit }], (m) => m.type === 'done' || m.type === 'error');
    const done = messages.at(-1);
    assert.equal(done?.type, 'done', JSON.stringify(done));
    assert.ok((done?.samples ?? 0) > 0);
  });

  test('a blank text is the same validation error on every door', async () => {
    const { key } = await s.newKey('blank@example.com');
    for (const res of [await speak(key, { text: '  \n' }), await openai(key, { input: '  \n' })]) {
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json().then((b) => ({ error: (b as { error: string }).error, code: (b as { code: string }).code })), {
        error: 'text must not be empty',
        code: 'validation',
      });
    }
    const [err] = await overStream(key, [{ type: 'synthesize', text: '  \n' }], (m) => m.type === 'error');
    assert.deepEqual(err, { type: 'error', error: 'text must not be empty', code: 'validation' });
  });
});

describe('speech service: usage and metering, once per request on every door', () => {
  test('each door records its request once, with its characters, and meters one synthesis', async () => {
    const before = {
      speak: await syntheses('speak', 'ok'),
      openai: await syntheses('openai', 'ok'),
      stream: await syntheses('stream', 'ok'),
    };
    const doors: Array<[string, (key: string, text: string) => Promise<number>]> = [
      ['speak', async (key, text) => wavSampleCount(new Uint8Array(await (await speak(key, { text, format: 'wav' })).arrayBuffer()))],
      [
        'openai',
        async (key, text) =>
          wavSampleCount(new Uint8Array(await (await openai(key, { input: text, response_format: 'wav' })).arrayBuffer())),
      ],
      [
        'openai-sse',
        async (key, text) => {
          const res = await openai(key, { input: text, response_format: 'pcm', stream_format: 'sse' });
          const events = (await res.text()).split('\n\n').filter((e) => e.startsWith('data: '));
          const deltas = events
            .map((e) => JSON.parse(e.slice(6)) as { type: string; audio?: string })
            .filter((e) => e.type === 'speech.audio.delta');
          return deltas.reduce((n, d) => n + Buffer.from(d.audio ?? '', 'base64').length / 2, 0);
        },
      ],
      [
        'stream',
        async (key, text) => {
          const messages = await overStream(key, [{ type: 'synthesize', text }], (m) => m.type === 'done' || m.type === 'error');
          assert.equal(messages.at(-1)?.type, 'done', JSON.stringify(messages.at(-1)));
          return messages.at(-1)?.samples ?? 0;
        },
      ],
    ];
    for (const [door, run] of doors) {
      const { key, id, cookie } = await s.newKey(`usage-${door}@example.com`);
      const text = `Counted once by ${door}.`;
      assert.ok((await run(key, text)) > 0, `${door} spoke`);
      assert.deepEqual(await usageOf(cookie, id), { characters: text.length, requests: 1 }, door);
    }
    assert.equal(await syntheses('speak', 'ok'), before.speak + 1);
    assert.equal(await syntheses('openai', 'ok'), before.openai + 2);
    assert.equal(await syntheses('stream', 'ok'), before.stream + 1);
  });

  test('refused requests are neither counted nor metered', async () => {
    const before = [await syntheses('speak'), await syntheses('openai'), await syntheses('stream')];
    const { key, id, cookie } = await s.newKey('refused@example.com');
    await (await speak(key, { text: 'hi', voice_id: 'no-such-voice' })).arrayBuffer();
    await (await openai(key, { input: 'x'.repeat(LIMIT + 1) })).arrayBuffer();
    await overStream(key, [{ type: 'synthesize', text: 'hi', speed: 9 }], (m) => m.type === 'error');
    assert.equal(await usageOf(cookie, id), undefined);
    assert.deepEqual([await syntheses('speak'), await syntheses('openai'), await syntheses('stream')], before);
  });
});

describe('speech service: only speech delivered in full is counted', () => {
  const big = useService();

  test('a stream request cancelled mid-way is metered as cancelled and not counted as usage', async () => {
    const { key, id, cookie } = await big.newKey('cancelled@example.com');
    const cancelledBefore = await syntheses('stream', 'cancelled', big);
    const long = Array.from({ length: 40 }, (_, i) => `This is sentence ${i + 1}, which nobody will hear.`).join(' ');
    const ws = new WebSocket(`${big.base.replace('http', 'ws')}/v1/ws/stream?token=${key}`);
    const done = await new Promise<StreamMessage>((resolve, reject) => {
      ws.once('open', () => ws.send(JSON.stringify({ type: 'synthesize', text: long, id: 'long', voice_id: 'espeak-en-us-male-1' })));
      let cancelled = false;
      ws.on('message', (data) => {
        const m = JSON.parse(data.toString()) as StreamMessage;
        if (m.type === 'audio' && !cancelled) {
          cancelled = true;
          ws.send(JSON.stringify({ type: 'cancel', id: 'long' }));
        }
        if (m.type === 'done' || m.type === 'error') resolve(m);
      });
      ws.once('error', reject);
    });
    ws.close();
    assert.equal(done.cancelled, true, JSON.stringify(done));
    const res = await big.request('/api/usage', { cookie });
    const usage = (await res.json()) as { keys: Array<{ key_id: string }> };
    assert.equal(
      usage.keys.find((r) => r.key_id === id),
      undefined,
    );
    assert.equal(await syntheses('stream', 'cancelled', big), cancelledBefore + 1);
  });

  test('a cancel sent right behind its request ends it as cancelled, not as an error', async () => {
    const { key, id, cookie } = await big.newKey('cancelled-early@example.com');
    const long = Array.from({ length: 40 }, (_, i) => `Sentence ${i + 1} is never spoken.`).join(' ');
    const ws = new WebSocket(`${big.base.replace('http', 'ws')}/v1/ws/stream?token=${key}`);
    const received: StreamMessage[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => {
        ws.send(JSON.stringify({ type: 'synthesize', text: long, id: 'early', voice_id: 'flite-slt' }));
        ws.send(JSON.stringify({ type: 'cancel', id: 'early' }));
      });
      ws.on('message', (data) => {
        const m = JSON.parse(data.toString()) as StreamMessage;
        received.push(m);
        if (m.type === 'done' || m.type === 'error') resolve();
      });
      ws.once('error', reject);
    });
    ws.close();
    const last = received.at(-1);
    assert.equal(last?.type, 'done', JSON.stringify(last));
    assert.equal(last?.cancelled, true);
    const usage = (await (await big.request('/api/usage', { cookie })).json()) as { keys: Array<{ key_id: string }> };
    assert.equal(
      usage.keys.find((r) => r.key_id === id),
      undefined,
    );
  });
});
