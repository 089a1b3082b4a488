// Input streaming speaks a sentence that plainly ends as soon as its last piece comes, without waiting for the
// next character; an end that more text could undo ("Dr.", "3.") waits for it or for a flush. Checked on both
// doors that stream text in (WebSocket contexts, Wyoming's synthesize-chunk) through the real server. Each door
// handles a connection's messages in order, so a later request's answer (a plain request's done, a pong) marks
// the point by which a sentence spoken at once has sent its audio: no clock is needed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WyomingEvent } from '../../src/wyoming/frames.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { dropSchema, randomSchema, testStore } from '../helpers/stores.ts';
import { WyomingClient } from '../helpers/wyoming-client.ts';
import { StreamClient, type StreamMsg } from '../helpers/ws-client.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'voxsmith-sentence-end-'));
// Both runs must see the same database (on PostgreSQL: the same schema).
const pgSchema = testStore === 'postgres' ? randomSchema('sentend') : undefined;
let s: TestServer;
let key: string;
let wyomingPort: number;

before(async () => {
  // Wyoming bills a key that must exist before the server starts: made on a first run of the same data.
  const first = await startServer({ dataDir, pgSchema });
  ({ key } = await first.newKey('sentence-end@example.com', 'home-assistant'));
  await first.close();
  s = await startServer({ dataDir, pgSchema, env: { WYOMING_PORT: '0', WYOMING_API_KEY: key } });
  const address = s.app.services.wyoming?.address();
  assert.ok(address, 'Wyoming is listening');
  wyomingPort = address.port;
});
after(async () => {
  await s?.close();
  rmSync(dataDir, { recursive: true, force: true });
  if (pgSchema) await dropSchema(pgSchema);
});

describe('WebSocket contexts: a plain sentence end is spoken at once', () => {
  const open = () => StreamClient.open(`${s.base.replace('http', 'ws')}/v1/ws/stream?token=${key}`);
  const audioOf = (contextId: string) => (m: StreamMsg) => m.type === 'audio' && m.context_id === contextId;
  let probes = 0;
  /** A plain request after what was sent: its done comes after anything those messages made ready. */
  async function probe(c: StreamClient): Promise<number> {
    const id = `probe-${++probes}`;
    c.send({ type: 'synthesize', text: 'Probe.', id });
    const done = await c.until((m) => m.type === 'done' && m.id === id);
    return c.messages.indexOf(done);
  }

  test('"Hello there." with nothing after it and no flush: its audio comes', async () => {
    const c = await open();
    for (const t of ['Hello', ' there', '.'])
      c.send({ type: 'synthesize', context_id: 'hi', text: t, continue: true, voice_id: 'flite-slt' });
    const probed = await probe(c);
    const first = c.messages.findIndex(audioOf('hi'));
    assert.ok(first >= 0 && first < probed, 'the sentence was spoken before the request sent after it');
    // It was the whole sentence: a flush now has nothing left to say.
    const heard = c.samples(audioOf('hi')).length;
    assert.ok(heard > 0.4 * 24_000, `${heard} samples`);
    c.send({ type: 'flush', context_id: 'hi' });
    const done = await c.until((m) => m.type === 'done' && m.context_id === 'hi');
    assert.equal(done.samples, heard);
    c.close();
  });

  for (const [what, pieces, more] of [
    ['a title', ['I', ' met', ' Dr.'], ' Smith today.'],
    ['a number', ['The', ' answer', ' is', ' 3.'], '5 exactly.'],
    ['an initial', ['A', ' book', ' by', ' J.'], ' Smith.'],
  ] as const) {
    test(`${what}: "${pieces.join('')}" waits, then more text speaks it whole`, async () => {
      const c = await open();
      for (const t of pieces)
        c.send({ type: 'synthesize', context_id: 'wait', text: t, continue: true, voice_id: 'espeak-en-us-female-1' });
      const probed = await probe(c);
      assert.equal(c.messages.slice(0, probed).filter(audioOf('wait')).length, 0, 'no audio before more text');
      c.send({ type: 'synthesize', context_id: 'wait', text: more, continue: true });
      const spoken = c.messages.slice(0, await probe(c)).filter(audioOf('wait'));
      assert.ok(spoken.length > 0, 'spoken once the sentence plainly ends');
      // One sentence with the words of both pieces, timed on the utterance.
      const words = spoken.flatMap((m) => m.words ?? []);
      const written = `${pieces.join('')}${more}`;
      assert.ok(words.length >= written.split(/\s+/).length - 1, `${words.length} words timed of ${JSON.stringify(written)}`);
      for (const w of words) assert.equal(written.slice(w.offset ?? -1, (w.offset ?? -1) + (w.length ?? 0)), w.word);
      c.close();
    });
  }

  test('"I met Dr." then a flush: spoken by the flush', async () => {
    const c = await open();
    for (const t of ['I', ' met', ' Dr.']) c.send({ type: 'synthesize', context_id: 'dr', text: t, continue: true, voice_id: 'flite-slt' });
    const probed = await probe(c);
    assert.equal(c.messages.slice(0, probed).filter(audioOf('dr')).length, 0, 'no audio before the flush');
    c.send({ type: 'flush', context_id: 'dr' });
    const done = await c.until((m) => m.type === 'done' && m.context_id === 'dr');
    assert.ok((done.samples ?? 0) > 0.3 * 24_000, `${done.samples} samples`);
    c.close();
  });
});

describe("Wyoming's streamed text: a plain sentence end is spoken at once", () => {
  /** Sends a ping and reads up to its pong: the events the chunks before it caused. */
  async function untilPong(c: WyomingClient): Promise<WyomingEvent[]> {
    c.send('ping', {});
    const events: WyomingEvent[] = [];
    for (;;) {
      const e = await c.next();
      if (e.type === 'pong') return events;
      events.push(e);
    }
  }
  const audioBytes = (events: WyomingEvent[]): number =>
    events.filter((e) => e.type === 'audio-chunk').reduce((n, e) => n + (e.payload?.length ?? 0), 0);

  test('"Hello there." is spoken before synthesize-stop; "I met Dr." waits for more text', async () => {
    const c = new WyomingClient(wyomingPort);
    await c.connected();
    c.send('synthesize-start', { voice: { name: 'flite-slt' } });
    c.send('synthesize-chunk', { text: 'Hello there.' });
    const first = await untilPong(c);
    assert.equal(first[0]?.type, 'audio-start', JSON.stringify(first.map((e) => e.type)));
    assert.ok(audioBytes(first) > 0.4 * 24_000 * 2, `${audioBytes(first)} bytes before the pong`);

    for (const t of [' I', ' met', ' Dr.']) c.send('synthesize-chunk', { text: t });
    const waiting = await untilPong(c);
    assert.deepEqual(
      waiting.map((e) => e.type),
      [],
      'nothing spoken for "I met Dr."',
    );

    c.send('synthesize-chunk', { text: ' Smith today.' });
    const spoken = await untilPong(c);
    assert.ok(audioBytes(spoken) > 0.8 * 24_000 * 2, `${audioBytes(spoken)} bytes for "I met Dr. Smith today."`);
    assert.ok(
      spoken.every((e) => e.type === 'audio-chunk'),
      'one stream of audio, its audio-start already sent',
    );

    c.send('synthesize-stop');
    assert.equal((await c.next()).type, 'audio-stop');
    assert.equal((await c.next()).type, 'synthesize-stopped');
    c.close();
  });

  test('"I met Dr." alone is spoken by synthesize-stop', async () => {
    const c = new WyomingClient(wyomingPort);
    await c.connected();
    c.send('synthesize-start', { voice: { name: 'flite-slt' } });
    c.send('synthesize-chunk', { text: 'I met Dr.' });
    assert.deepEqual(
      (await untilPong(c)).map((e) => e.type),
      [],
    );
    c.send('synthesize-stop');
    const audio = await c.audio();
    assert.ok(audio.samples > 0.3 * 24_000, `${audio.samples} samples`);
    assert.equal((await c.next()).type, 'synthesize-stopped');
    c.close();
  });
});
