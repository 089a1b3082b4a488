// A worker that dies mid-task: the task fails, piscina replaces the thread, readiness waits for the
// replacement to load its engines, and the next task runs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import { LONG_WORK_NICE } from '../../src/synth/core-yield.ts';
import { SynthPool } from '../../src/synth/pool.ts';
import { threadPriority } from '../../src/synth/thread-priority.ts';
import { threadsAtNice } from '../helpers/thread-nice.ts';
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
    assert.equal(pool.stats().readyWorkers, 1, 'the stats count the warm thread only');
    const channel = new MessageChannel();
    channel.port1.on('message', () => undefined);
    const result = await pool.run(speakTask(1, channel.port2), [channel.port2]);
    channel.port1.close();
    assert.equal(result.type, 'spoken');
    await all;
    assert.equal(pool.stats().readyWorkers, 2);
  } finally {
    await pool.close();
  }
});

/** A task's stream as it arrives: whether its first chunk and its end have come. */
function listen(port: MessageChannel['port1']) {
  let chunk!: () => void;
  let end!: () => void;
  const heard = {
    ended: false,
    firstChunk: new Promise<void>((resolve) => (chunk = resolve)),
    done: new Promise<void>((resolve) => (end = resolve)),
  };
  port.on('message', (m: StreamMessage) => {
    if (m.type === 'chunk') chunk();
    else {
      heard.ended = true;
      end();
    }
  });
  return heard;
}

/** Threads set their own priority here (see thread-priority.ts). */
const perThreadPriority = threadPriority() !== undefined;

/** A long reading placed as one: about four minutes of speech, so many pieces, and other requests get turns between them. */
function startReading(pool: SynthPool, id: number) {
  const channel = new MessageChannel();
  const task = speakTask(id, channel.port2);
  task.request = { ...task.request, text: 'The keeper climbed the stairs, lit the lamp, and watched the ships come home. '.repeat(60) };
  const heard = listen(channel.port1);
  return { id, channel, heard, run: pool.run(task, [channel.port2], true) };
}

test('two long readings alone take both threads, and a short request arriving meanwhile ends before either', async () => {
  const pool = new SynthPool({ workers: 2, cores: 2 });
  try {
    await pool.ready();
    const a = startReading(pool, 1);
    const b = startReading(pool, 2);
    await Promise.all([a.heard.firstChunk, b.heard.firstChunk]);
    assert.deepEqual(pool.stats().longReadings, [1, 1], 'one long reading on each thread');

    const s = new MessageChannel();
    const short = listen(s.port1);
    const task = speakTask(3, s.port2);
    task.request = { ...task.request, text: 'Please call the front desk when the visitor arrives.' };
    const result = await pool.run(task, [s.port2]);
    await short.done;
    assert.ok(result.seconds > 1, `${result.seconds} s of audio`);
    assert.equal(a.heard.ended || b.heard.ended, false, 'both long readings still going when the short request ended');

    for (const r of [a, b]) r.channel.port1.postMessage({ type: 'cancel', id: r.id });
    const [ra, rb] = await Promise.all([a.run, b.run]);
    assert.ok(ra.cancelled && rb.cancelled, 'cancelled, not finished');
    for (const c of [a.channel, b.channel, s]) c.port1.close();
  } finally {
    await pool.close();
  }
});

test('with a thread beyond the cores: long readings take a thread per core at a lower priority (or step aside) while short requests start on the third', async () => {
  const pool = new SynthPool({ workers: 3, cores: 2 });
  try {
    await pool.ready();
    const readings = [startReading(pool, 1), startReading(pool, 2), startReading(pool, 3)];
    await Promise.all(readings.map((r) => r.heard.firstChunk));
    assert.deepEqual(pool.stats().longReadings, [2, 1], 'three long readings on two threads: the third thread is kept for short requests');
    assert.equal(pool.stats().longPauses, 0, 'nobody paused while no short request came');

    for (let i = 0; i < 5; i++) {
      const s = new MessageChannel();
      const short = listen(s.port1);
      const task = speakTask(10 + i, s.port2);
      task.request = { ...task.request, text: `Please call the front desk when visitor ${i} arrives.` };
      const result = await pool.run(task, [s.port2]);
      await short.done;
      assert.ok(result.seconds > 1, `${result.seconds} s of audio`);
      s.port1.close();
    }
    if (perThreadPriority) {
      assert.equal(pool.stats().lowPriorityThreads, 2, 'the two long-reading threads lowered their priority');
      assert.equal(threadsAtNice(LONG_WORK_NICE), 2, 'the kernel has two threads of this process at the lower priority');
      assert.equal(pool.stats().longPauses, 0, 'at a lower priority, they need not pause');
    } else {
      assert.ok(pool.stats().longPauses > 0, 'a long reading paused for a short request');
    }
    assert.ok(
      readings.every((r) => !r.heard.ended),
      'the long readings still going',
    );
    for (const r of readings) r.channel.port1.postMessage({ type: 'cancel', id: r.id });
    const results = await Promise.all(readings.map((r) => r.run));
    assert.ok(results.every((r) => r.cancelled));
    assert.equal(pool.stats().lowPriorityThreads, 0, 'no long reading left: every thread at full priority');
    if (perThreadPriority) assert.equal(threadsAtNice(LONG_WORK_NICE), 0);
    for (const r of readings) r.channel.port1.close();
  } finally {
    await pool.close();
  }
});
