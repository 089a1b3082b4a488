import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import WebSocket from 'ws';
import { STREAM_SAMPLE_RATE } from '../../src/schemas/speech.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

// Finding 3 of the outside security test: one request could produce 37 minutes of audio. MAX_AUDIO_SECONDS stops
// the synthesis as audio is produced and tells the client (an HTTP trailer, a last WebSocket message).

const CAP_SECONDS = 2;
// About 25 s of speech: far past the cap.
const LONG_TEXT = 'The quick brown fox jumps over the lazy dog, and then it runs far away into the woods. '.repeat(5);

describe('MAX_AUDIO_SECONDS', () => {
  let s: TestServer;
  let key: string;
  let cookie: string;
  before(async () => {
    s = await startServer({ env: { MAX_AUDIO_SECONDS: String(CAP_SECONDS) } });
    ({ key, cookie } = await s.newKey('cap@example.com'));
  });
  after(async () => {
    await s.close();
  });

  const charactersUsed = async (): Promise<number> => {
    const usage = (await (await s.request('/api/usage', { cookie })).json()) as { keys: Array<{ characters: number }> };
    return usage.keys.reduce((sum, k) => sum + k.characters, 0);
  };

  test('HTTP: the audio stops at the cap and the error arrives in the X-Voxsmith-Error trailer', async () => {
    const before = await charactersUsed();
    const url = new URL('/v1/speak', s.base);
    const { status, headers, body, trailers } = await new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer; trailers: NodeJS.Dict<string> }>(
      (resolve, reject) => {
        const req = httpRequest(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } }, (res) => {
          const parts: Buffer[] = [];
          res.on('data', (d: Buffer) => parts.push(d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts), trailers: res.trailers }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(JSON.stringify({ text: LONG_TEXT, format: 'pcm' }));
      },
    );
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
    // Like a cancel, speech cut short is not counted.
    assert.equal(await charactersUsed(), before);
  });

  test('HTTP: speech under the cap has no error trailer', async () => {
    const res = await s.request('/v1/speak', { json: { text: 'Hi.', format: 'pcm' }, bearer: key });
    assert.equal(res.status, 200);
    assert.ok((await res.arrayBuffer()).byteLength > 0);
  });

  test('WebSocket: the last message for the request is an audio_too_long error', async () => {
    const before = await charactersUsed();
    const ws = new WebSocket(`${s.base.replace('http', 'ws')}/v1/ws/stream?token=${key}`);
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
    const next = new Promise<void>((resolve) => ws.on('message', (d) => (JSON.parse(d.toString()) as { type: string }).type === 'done' && resolve()));
    ws.send(JSON.stringify({ type: 'synthesize', id: 'short', text: 'Hi.' }));
    await next;
    ws.close();
    assert.equal(await charactersUsed(), before + 'Hi.'.length);
  });
});
