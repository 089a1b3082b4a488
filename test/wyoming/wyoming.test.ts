// The Wyoming TTS server driven by a raw TCP client (node:net), as Home Assistant's client would, through the
// real server: describe/info, synthesize, streaming synthesize, errors, and bad frames on one connection only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ERRORS } from '../../src/schemas/errors.ts';
import { pcm16Samples, rms } from '../audio/signals.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { WyomingClient } from '../helpers/wyoming-client.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'voxsmith-wyoming-'));
let s: TestServer;
let key: string;
let port: number;

before(async () => {
  // The key must exist before the server that bills it starts: create it on a first run of the same data.
  const first = await startServer({ dataDir });
  ({ key } = await first.newKey('wyoming@example.com', 'home-assistant'));
  await first.close();
  s = await startServer({ dataDir, env: { WYOMING_PORT: '0', WYOMING_API_KEY: key } });
  const address = s.app.services.wyoming?.address();
  assert.ok(address, 'Wyoming is listening');
  assert.equal(address.address, '127.0.0.1');
  port = address.port;
});
after(async () => {
  await s?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A client of this file's server. */
class Client extends WyomingClient {
  constructor() {
    super(port);
  }
}

async function httpSamples(text: string, voice_id: string): Promise<number> {
  const res = await s.request('/v1/speak', { json: { text, voice_id, format: 'pcm' }, bearer: key });
  assert.equal(res.status, 200);
  return (await res.arrayBuffer()).byteLength / 2;
}

describe('Wyoming', () => {
  test('describe → info listing every voice with BCP-47 languages and streaming support', async () => {
    const c = new Client();
    c.send('describe');
    const info = await c.next();
    assert.equal(info.type, 'info');
    const tts = info.data.tts as Array<Record<string, unknown>>;
    assert.equal(tts.length, 1);
    assert.equal(tts[0].supports_synthesize_streaming, true);
    assert.equal(tts[0].installed, true);
    const voices = tts[0].voices as Array<{
      name: string;
      languages: string[];
      installed: boolean;
      attribution: { name: string; url: string };
    }>;
    const list = (await (await s.request('/api/voices')).json()) as { voices: Array<{ id: string }> };
    assert.equal(voices.length, list.voices.length);
    const slt = voices.find((v) => v.name === 'flite-slt');
    assert.deepEqual(slt?.languages, ['en-US']);
    assert.ok(voices.find((v) => v.name === 'espeak-de-female-1')?.languages[0].startsWith('de'));
    for (const v of voices)
      assert.ok(v.installed && typeof v.attribution.name === 'string' && /^[a-z]{2,3}(-[A-Za-z0-9]+)*$/.test(v.languages[0]), v.name);
    c.close();
  });

  test('synthesize → audio-start, PCM chunks, audio-stop: 16-bit mono, as long as the same text over HTTP', async () => {
    const text = 'The kitchen lights are now off. Good night.';
    const c = new Client();
    c.send('synthesize', { text, voice: { name: 'flite-rms', language: 'en-US', speaker: null } });
    const audio = await c.audio();
    assert.equal(audio.rate, 24_000);
    assert.ok(rms(pcm16Samples(audio.bytes)) > 0.01, 'not silent');
    const http = await httpSamples(text, 'flite-rms');
    assert.ok(Math.abs(audio.samples - http) < 0.01 * http, `${audio.samples} vs ${http} samples`);
    c.close();
  });

  test('streaming: audio for the first sentence arrives before synthesize-stop is sent; then synthesize-stopped', async () => {
    const c = new Client();
    c.send('synthesize-start', { voice: { name: 'flite-slt' } });
    c.send('synthesize-chunk', { text: 'The front door ' });
    c.send('synthesize-chunk', { text: 'is locked. The ' });
    // Nothing more is sent until audio for the complete first sentence has come back.
    const start = await c.next();
    assert.equal(start.type, 'audio-start');
    const first = await c.next();
    assert.equal(first.type, 'audio-chunk');
    assert.ok((first.payload?.length ?? 0) > 0);
    c.send('synthesize-chunk', { text: 'garage is open' });
    // Home Assistant also sends the whole text as `synthesize` for servers that do not stream: ignored here.
    c.send('synthesize', { text: 'The front door is locked. The garage is open.', voice: { name: 'flite-slt' } });
    c.send('synthesize-stop');
    let samples = (first.payload?.length ?? 0) / 2;
    for (;;) {
      const e = await c.next();
      if (e.type === 'audio-stop') break;
      assert.equal(e.type, 'audio-chunk');
      samples += (e.payload?.length ?? 0) / 2;
    }
    assert.equal((await c.next()).type, 'synthesize-stopped');
    // Both sentences, spoken once each (the compatibility `synthesize` added nothing).
    const whole = await httpSamples('The front door is locked. The garage is open.', 'flite-slt');
    assert.ok(Math.abs(samples - whole) < 0.15 * whole, `${samples} vs ${whole} samples`);
    c.close();
  });

  test('an unknown voice is an error event and the connection still serves', async () => {
    const c = new Client();
    c.send('synthesize', { text: 'Hello.', voice: { name: 'no-such-voice' } });
    const e = await c.next();
    assert.equal(e.type, 'error');
    assert.equal(e.data.code, 'voice_not_found');
    assert.match(String(e.data.text), /no-such-voice/);
    c.send('synthesize', { text: 'Hello.' });
    assert.ok((await c.audio()).samples > 2400);
    c.close();
  });

  test('error events carry the codes of the error catalogue, as every other door does', async () => {
    const c = new Client();
    c.send('synthesize-chunk', { text: 'Out of order.' });
    const chunk = await c.next();
    c.send('synthesize-stop');
    const stop = await c.next();
    for (const e of [chunk, stop]) {
      assert.equal(e.type, 'error');
      assert.equal(e.data.code, 'validation');
      assert.ok(Object.hasOwn(ERRORS, String(e.data.code)));
      assert.match(String(e.data.text), /without synthesize-start/);
    }
    c.send('synthesize', { text: 'Hello.' });
    assert.ok((await c.audio()).samples > 2400);
    c.close();
  });

  test('usage is billed to WYOMING_API_KEY', async () => {
    const { cookie } = await s.signIn('wyoming@example.com');
    const usage = (await (await s.request('/api/usage', { cookie })).json()) as { keys: Array<{ characters?: number; name?: string }> };
    assert.ok(JSON.stringify(usage).includes('home-assistant'), JSON.stringify(usage));
  });

  for (const [name, bytes] of [
    ['garbage that is not JSON', Buffer.from('hello wyoming\n')],
    ['a header line over the limit', Buffer.alloc(70 * 1024, 0x61)],
    ['a huge payload_length', Buffer.from(`${JSON.stringify({ type: 'audio-chunk', payload_length: 1e12 })}\n`)],
    ['a negative data_length', Buffer.from(`${JSON.stringify({ type: 'synthesize', data_length: -5 })}\n`)],
    ['data that is not an object', Buffer.from(`${JSON.stringify({ type: 'synthesize', data_length: 3 })}\n[1]`)],
  ] as const) {
    test(`${name} closes that connection; another one is served meanwhile`, async () => {
      const healthy = new Client();
      const bad = new Client();
      healthy.send('synthesize-start', { voice: { name: 'flite-slt' } });
      healthy.send('synthesize-chunk', { text: 'Still here. ' });
      bad.socket.write(bytes);
      await bad.whenClosed();
      healthy.send('synthesize-stop');
      const audio = await healthy.audio();
      assert.ok(audio.samples > 2400);
      assert.equal((await healthy.next()).type, 'synthesize-stopped');
      healthy.close();
    });
  }
});

describe('Wyoming configuration', () => {
  test('a WYOMING_API_KEY that is not a key stops the start', async () => {
    await assert.rejects(startServer({ env: { WYOMING_PORT: '0', WYOMING_API_KEY: 'service_sk_not-a-real-key' } }), /WYOMING_API_KEY/);
  });
});
