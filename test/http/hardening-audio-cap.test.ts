import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import WebSocket from 'ws';
import { STREAM_SAMPLE_RATE } from '../../src/schemas/speech.ts';
import { useService } from '../helpers/fixture.ts';

// One request could once produce 37 minutes of audio from a short text. MAX_AUDIO_SECONDS stops
// the synthesis as audio is produced and tells the client (an HTTP trailer, a last WebSocket message).

const CAP_SECONDS = 2;
// About 25 s of speech: far past the cap.
const LONG_TEXT = 'The quick brown fox jumps over the lazy dog, and then it runs far away into the woods. '.repeat(5);

describe('MAX_AUDIO_SECONDS', () => {
  const s = useService({ env: { MAX_AUDIO_SECONDS: String(CAP_SECONDS) }, user: 'cap@example.com' });

  const charactersUsed = async (): Promise<number> => {
    const usage = (await (await s.request('/api/usage', { cookie: s.cookie })).json()) as { keys: Array<{ characters: number }> };
    return usage.keys.reduce((sum, k) => sum + k.characters, 0);
  };

  test('HTTP: the audio stops at the cap and the error arrives in the X-Voxsmith-Error trailer', async () => {
    const before = await charactersUsed();
    const url = new URL('/v1/speak', s.base);
    const { status, headers, body, trailers } = await new Promise<{
      status: number;
      headers: Record<string, unknown>;
      body: Buffer;
      trailers: NodeJS.Dict<string>;
    }>((resolve, reject) => {
      const req = httpRequest(
        url,
        { method: 'POST', headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' } },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (d: Buffer) => parts.push(d));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts), trailers: res.trailers }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ text: LONG_TEXT, format: 'pcm' }));
    });
    assert.equal(status, 200);
    assert.equal(String(headers.trailer).toLowerCase(), 'x-voxsmith-error');
    const rate = Number(headers['x-sample-rate']);
    const seconds = body.length / 2 / rate;
    assert.ok(seconds > 0 && seconds <= CAP_SECONDS, `${seconds} s of audio`);
    const trailer = trailers['x-voxsmith-error'];
    assert.ok(trailer, 'the trailer is present');
    const error = JSON.parse(trailer) as { code: string; error: string; request_id: string };
    assert.equal(error.code, 'audio_too_long');
    assert.match(error.error, /MAX_AUDIO_SECONDS/);
    assert.equal(error.request_id, headers['x-request-id']);
    // What was delivered is counted: some of the text, not none of it and not all of it.
    const counted = (await charactersUsed()) - before;
    assert.ok(
      counted > 0 && counted < LONG_TEXT.length / 2,
      `${counted} of ${LONG_TEXT.length} characters counted for ${seconds} s of audio`,
    );
  });

  test('HTTP: speech under the cap has no error trailer', async () => {
    const res = await s.call('/v1/speak', { json: { text: 'Hi.', format: 'pcm' } });
    assert.equal(res.status, 200);
    assert.ok((await res.arrayBuffer()).byteLength > 0);
  });

  test('WebSocket: the last message for the request is an audio_too_long error', async () => {
    const before = await charactersUsed();
    const ws = new WebSocket(`${s.base.replace('http', 'ws')}/v1/ws/stream?token=${s.key}`);
    const messages: Array<{ type: string; id?: string; code?: string; audio?: string }> = [];
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const ended = new Promise<void>((resolve) => {
      ws.on('message', (d) => {
        const m = JSON.parse(d.toString()) as { type: string; id?: string };
        messages.push(m);
        if (m.type === 'error' || m.type === 'done') resolve();
      });
    });
    ws.send(JSON.stringify({ type: 'synthesize', id: 'long', text: LONG_TEXT }));
    await ended;
    const last = messages.at(-1);
    assert.equal(last?.type, 'error');
    assert.equal(last?.code, 'audio_too_long');
    assert.equal(last?.id, 'long');
    const bytes = messages.filter((m) => m.type === 'audio').reduce((n, m) => n + Buffer.from(m.audio ?? '', 'base64').length, 0);
    // float32 at the stream's rate
    const seconds = bytes / 4 / STREAM_SAMPLE_RATE;
    assert.ok(seconds > 0 && seconds <= CAP_SECONDS, `${seconds} s of audio`);
    // The connection stays usable.
    messages.length = 0;
    const next = new Promise<void>((resolve) =>
      ws.on('message', (d) => (JSON.parse(d.toString()) as { type: string }).type === 'done' && resolve()),
    );
    ws.send(JSON.stringify({ type: 'synthesize', id: 'short', text: 'Hi.' }));
    await next;
    ws.close();
    const counted = (await charactersUsed()) - before - 'Hi.'.length;
    assert.ok(counted > 0 && counted < LONG_TEXT.length / 2, `${counted} of ${LONG_TEXT.length} characters counted for the cut request`);
  });
});

describe('MAX_AUDIO_SECONDS and SSML', () => {
  const s = useService({ env: { MAX_AUDIO_SECONDS: '60' }, user: 'cap-ssml@example.com' });

  test('breaks past the cap are refused with audio_too_long before any of their silence is made', async () => {
    const text = `<speak>Hi.${'<break time="10s"/>'.repeat(7)}</speak>`;
    const res = await s.call('/v1/speak', { json: { text, format: 'pcm' } });
    assert.equal(res.status, 413);
    const body = (await res.json()) as { code: string; error: string };
    assert.equal(body.code, 'audio_too_long');
    assert.match(body.error, /breaks/);
    const usage = (await (await s.request('/api/usage', { cookie: s.cookie })).json()) as { keys: Array<{ requests: number }> };
    assert.equal(
      usage.keys.reduce((n, k) => n + k.requests, 0),
      0,
      'nothing was spoken or counted',
    );
  });

  test('SSML cut at the cap counts the spoken characters delivered, not its markup', async () => {
    const sentence = 'The quick brown fox jumps over the lazy dog, and then it runs far away into the woods. ';
    const text = `<speak>${`<p><prosody rate="slow">${sentence}</prosody></p>`.repeat(12)}</speak>`;
    const url = new URL('/v1/speak', s.base);
    const trailer = await new Promise<string | undefined>((resolve, reject) => {
      const req = httpRequest(
        url,
        { method: 'POST', headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.trailers['x-voxsmith-error']));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ text, format: 'pcm', voice_id: 'flite-slt' }));
    });
    assert.equal((JSON.parse(trailer ?? '{}') as { code?: string }).code, 'audio_too_long');
    const usage = (await (await s.request('/api/usage', { cookie: s.cookie })).json()) as { keys: Array<{ characters: number }> };
    const counted = usage.keys.reduce((n, k) => n + k.characters, 0);
    // 60 s of slow speech is a few of the 12 sentences: counted in spoken characters (each sentence's 87).
    assert.ok(counted >= sentence.length && counted < sentence.length * 10, `${counted} characters counted`);
  });
});
