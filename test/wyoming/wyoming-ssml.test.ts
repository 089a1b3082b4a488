// Wyoming's `text_format` (wyoming 1.10) on synthesize and synthesize-start: "ssml" is read with the SSML subset of
// every other door, through the real server and a raw TCP client as Home Assistant's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pcm16Samples, rms } from '../audio/signals.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { WyomingClient } from '../helpers/wyoming-client.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'voxsmith-wyoming-ssml-'));
let s: TestServer;
let port: number;
const VOICE = { name: 'flite-slt' };
// Generous: about hangs, not speed (the machine is shared).
const WAIT_MS = 300_000;

before(async () => {
  // The key must exist before the server that bills it starts: create it on a first run of the same data.
  const first = await startServer({ dataDir });
  const { key } = await first.newKey('wyoming-ssml@example.com', 'home-assistant');
  await first.close();
  s = await startServer({ dataDir, env: { WYOMING_PORT: '0', WYOMING_API_KEY: key } });
  const address = s.app.services.wyoming?.address();
  assert.ok(address, 'Wyoming is listening');
  port = address.port;
});
after(async () => {
  await s?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The samples of one synthesize, and the rate they came at. */
async function synthesize(text: string, textFormat?: string): Promise<{ samples: number; rate: number; bytes: Buffer }> {
  const c = new WyomingClient(port);
  c.send('synthesize', { text, voice: VOICE, ...(textFormat ? { text_format: textFormat } : {}) });
  const audio = await Promise.race([
    c.audio(),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no audio')), WAIT_MS)),
  ]);
  c.close();
  return audio;
}

const PLAIN = 'Hello there. Goodbye now.';
const WITH_BREAK = '<speak>Hello there.<break time="1500ms"/>Goodbye now.</speak>';

describe('Wyoming text_format', () => {
  test('synthesize with text_format ssml: a <break> makes the audio longer by its time; <say-as> spells', async () => {
    const plain = await synthesize(PLAIN, 'text');
    const ssml = await synthesize(WITH_BREAK, 'ssml');
    const added = (ssml.samples - plain.samples) / ssml.rate;
    // 1.5 s of break in place of the usual pause between the sentences (a few tenths of a second).
    assert.ok(added > 0.9 && added < 2.2, `the break added ${added} s`);
    assert.ok(rms(pcm16Samples(ssml.bytes)) > 0.01, 'speech, not only silence');

    const word = await synthesize('<speak>cat</speak>', 'ssml');
    const spelled = await synthesize('<speak><say-as interpret-as="characters">cat</say-as></speak>', 'ssml');
    assert.ok(spelled.samples > 1.5 * word.samples, `spelled ${spelled.samples} against ${word.samples} samples`);
  });

  test('text_format text reads markup as text; an SSML document without text_format is still SSML', async () => {
    const doc = '<speak>Hello there.<break time="1500ms"/>Goodbye now.</speak>';
    const asText = await synthesize(doc, 'text');
    const auto = await synthesize(doc);
    const ssml = await synthesize(doc, 'ssml');
    assert.equal(auto.samples, ssml.samples, 'no text_format: the document is SSML, as on every door');
    assert.notEqual(asText.samples, ssml.samples, 'text: the markup is not read as SSML');
  });

  test('synthesize-start with text_format ssml: chunks cut mid-tag make one document, spoken at synthesize-stop', async () => {
    const whole = await synthesize(WITH_BREAK, 'ssml');
    const c = new WyomingClient(port);
    c.send('synthesize-start', { voice: VOICE, text_format: 'ssml' });
    for (const piece of ['<speak>Hello th', 'ere.<br', 'eak time="1500ms"/>Good', 'bye now.</sp', 'eak>'])
      c.send('synthesize-chunk', { text: piece });
    // Home Assistant sends the whole text too, for servers that do not stream; the stream already carries it.
    c.send('synthesize', { text: WITH_BREAK, voice: VOICE, text_format: 'ssml' });
    c.send('synthesize-stop');
    const streamed = await c.audio();
    assert.equal((await c.next(WAIT_MS)).type, 'synthesize-stopped');
    assert.equal(streamed.samples, whole.samples, 'the same speech as the document sent whole');
    c.close();
  });

  test('bad SSML and an unknown text_format are error events; the connection goes on', async () => {
    const c = new WyomingClient(port);
    c.send('synthesize', { text: '<speak>Unclosed <prosody rate="slow">tag</speak>', voice: VOICE, text_format: 'ssml' });
    const bad = await c.next(WAIT_MS);
    assert.equal(bad.type, 'error');
    assert.equal(bad.data.code, 'ssml_invalid');
    c.send('synthesize', { text: 'Hi.', voice: VOICE, text_format: 'markdown' });
    const unknown = await c.next(WAIT_MS);
    assert.equal(unknown.type, 'error');
    assert.equal(unknown.data.code, 'validation');
    assert.match(String(unknown.data.text), /text_format/);
    c.send('synthesize-start', { voice: VOICE, text_format: 'ssml' });
    c.send('synthesize-chunk', { text: '<speak>Fine <break time="300ms"/> again.</speak>' });
    c.send('synthesize-stop');
    assert.ok((await c.audio()).samples > 0);
    assert.equal((await c.next(WAIT_MS)).type, 'synthesize-stopped');
    c.close();
  });
});
