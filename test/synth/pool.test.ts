// A worker that dies mid-task: the task fails, piscina replaces the thread, readiness waits for the
// replacement to load its engines, and the next task runs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import { SynthPool } from '../../src/synth/pool.ts';
import type { SpeakTask, StreamMessage } from '../../src/synth/protocol.ts';

function speakTask(id: number, port: SpeakTask['port']): SpeakTask {
  return {
    type: 'speak',
    id,
    request: { text: 'Hello there, this is a test. '.repeat(20), voice: { engine: 'flite', base: 'slt' }, speed: 1, format: 'wav' },
    port,
    maxUnackedSeconds: 1000,
    stallTimeoutMs: 10_000,
  };
}

test('a crashed worker fails its task and is replaced with a ready one', async () => {
  const pool = new SynthPool({ workers: 1 });
  try {
    await pool.ready();
    // piscina offers no public way to kill a thread; its `threads` list is the real node Workers.
    const threads = (Reflect.get(pool, 'piscina') as { threads: { threadId: number; terminate(): Promise<number> }[] }).threads;
    const before = threads[0].threadId;
    const a = new MessageChannel();
    let chunks = 0;
    a.port1.on('message', (m: StreamMessage) => {
      if (m.type === 'chunk' && ++chunks === 2) void threads[0].terminate();
    });
    await assert.rejects(pool.run(speakTask(1, a.port2), [a.port2]), /exited/);
    a.port1.close();

    await pool.ready();
    const after = (Reflect.get(pool, 'piscina') as { threads: { threadId: number }[] }).threads;
    assert.equal(after.length, 1);
    assert.notEqual(after[0].threadId, before);

    const b = new MessageChannel();
    const last = new Promise<StreamMessage>((resolve) =>
      b.port1.on('message', (m: StreamMessage) => {
        if (m.type !== 'chunk') resolve(m);
      }),
    );
    const result = await pool.run(speakTask(2, b.port2), [b.port2]);
    assert.equal((await last).type, 'done');
    b.port1.close();
    assert.equal(result.cancelled, false);
    assert.ok(result.seconds > 10);
  } finally {
    await pool.close();
  }
});

test('with one warm-up at a time, the pool serves from its first warm thread while the second warms', async () => {
  const pool = new SynthPool({ workers: 2, warmAtOnce: 1 });
  try {
    let allReady = false;
    const all = pool.ready().then(() => {
      allReady = true;
    });
    await pool.serving();
    // The second thread's warm-up starts only when the first has reported ready.
    assert.equal(allReady, false, 'still warming');
    const channel = new MessageChannel();
    channel.port1.on('message', () => undefined);
    const result = await pool.run(speakTask(1, channel.port2), [channel.port2]);
    channel.port1.close();
    assert.equal(result.type, 'spoken');
    await all;
  } finally {
    await pool.close();
  }
});
