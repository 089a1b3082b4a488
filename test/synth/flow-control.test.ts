// The worker's side of a speak task, run in-process over a real MessageChannel: credit-based flow
// control bounds how far it runs ahead of a consumer that stops acknowledging, and cancel ends it.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { BLOCK_SECONDS } from '../../src/synth/pipeline.ts';
import type { StreamMessage } from '../../src/synth/protocol.ts';
import handle from '../../src/synth/worker.ts';

const TEXT = Array.from({ length: 15 }, (_, i) => `Sentence ${i + 1} goes on for a little while, so there is a lot of audio.`).join(' ');

/** The last message of a stream ('done' or 'error'); it may arrive after the handler has returned. */
function lastMessage(port: MessagePort): Promise<StreamMessage> {
  return new Promise((resolve) => {
    port.on('message', (m: StreamMessage) => {
      if (m.type === 'done' || m.type === 'error') resolve(m);
    });
  });
}

/** Waits until `check` holds, then until nothing new arrives for `quietMs` (the worker is parked). */
async function settle(count: () => number, check: () => boolean, quietMs = 600): Promise<void> {
  while (!check()) await sleep(20);
  for (let last = -1; last !== count();) {
    last = count();
    await sleep(quietMs);
  }
}

describe('worker flow control', () => {
  test('a consumer that stops acking bounds the audio in flight; acks resume it', async () => {
    const { port1, port2 } = new MessageChannel();
    const got: StreamMessage[] = [];
    port1.on('message', (m: StreamMessage) => got.push(m));
    const ended = lastMessage(port1);
    const maxUnackedSeconds = 1;
    const task = handle({
      type: 'speak',
      id: 7,
      request: { text: TEXT, voice: { engine: 'espeak', base: 'en-us' }, speed: 1, format: 'f32' },
      port: port2,
      maxUnackedSeconds,
      stallTimeoutMs: 60_000,
    });
    const seconds = () => got.reduce((s, m) => s + (m.type === 'chunk' ? m.seconds : 0), 0);
    await settle(
      () => got.length,
      () => seconds() > maxUnackedSeconds,
    );
    const inFlight = seconds();
    assert.ok(inFlight <= maxUnackedSeconds + BLOCK_SECONDS + 1e-6, `${inFlight}s unacknowledged`);
    assert.ok(!got.some((m) => m.type === 'done'));

    // Ack as chunks arrive: the rest flows and the task completes.
    let acked = 0;
    const ackAll = () => {
      const s = seconds();
      if (s > acked) port1.postMessage({ type: 'ack', id: 7, seconds: s - acked });
      acked = s;
    };
    ackAll();
    port1.on('message', ackAll);
    const result = await task;
    assert.equal((await ended).type, 'done');
    port1.close();
    assert.equal(result.cancelled, false);
    // 15 sentences of ~4 s each.
    assert.ok(seconds() > 30, `${seconds()}s in total`);
  });

  test('cancel stops the task, queued or running', async () => {
    const { port1, port2 } = new MessageChannel();
    const got: StreamMessage[] = [];
    port1.on('message', (m: StreamMessage) => {
      got.push(m);
      if (m.type === 'chunk') port1.postMessage({ type: 'ack', id: 8, seconds: m.seconds });
      if (got.length === 3) port1.postMessage({ type: 'cancel', id: 8 });
    });
    const result = await handle({
      type: 'speak',
      id: 8,
      request: { text: TEXT, voice: { engine: 'flite', base: 'slt' }, speed: 1, format: 'wav' },
      port: port2,
      maxUnackedSeconds: 2,
      stallTimeoutMs: 60_000,
    });
    port1.close();
    assert.equal(result.cancelled, true);
    assert.ok(result.sentences < 15, `${result.sentences} sentences rendered`);

    // A cancel sent before the task starts (while it was queued) ends it before any work.
    const ch = new MessageChannel();
    ch.port1.postMessage({ type: 'cancel', id: 9 });
    const early = await handle({
      type: 'speak',
      id: 9,
      request: { text: TEXT, voice: { engine: 'flite', base: 'slt' }, speed: 1, format: 'wav' },
      port: ch.port2,
      maxUnackedSeconds: 2,
      stallTimeoutMs: 60_000,
    });
    ch.port1.close();
    assert.equal(early.cancelled, true);
    assert.equal(early.sentences, 0);
  });

  test('a consumer that never acks is dropped after the stall timeout', async () => {
    const { port1, port2 } = new MessageChannel();
    const got: StreamMessage[] = [];
    port1.on('message', (m: StreamMessage) => got.push(m));
    const ended = lastMessage(port1);
    await handle({
      type: 'speak',
      id: 10,
      request: { text: TEXT, voice: { engine: 'espeak', base: 'en-us' }, speed: 1, format: 'pcm' },
      port: port2,
      maxUnackedSeconds: 0.5,
      stallTimeoutMs: 300,
    });
    const last = await ended;
    port1.close();
    assert.equal(last.type, 'error');
    assert.match(last.type === 'error' ? last.message : '', /stalled/);
  });
});
