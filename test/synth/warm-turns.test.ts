import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { createWarmTurns, WarmTurns } from '../../src/synth/warm-turns.ts';

const tick = () => new Promise((r) => setTimeout(r, 20));

test('with one slot, a second thread warms only after the first gives its turn back', async () => {
  const shared = createWarmTurns(2, 1);
  const a = new WarmTurns(shared);
  const b = new WarmTurns(shared);
  const giveA = await a.take();
  let bGot = false;
  const bTurn = b.take().then((give) => {
    bGot = true;
    return give;
  });
  await tick();
  assert.equal(bGot, false, 'the slot is taken');
  giveA();
  const giveB = await bTurn;
  assert.equal(bGot, true);
  giveB();
  // Free again: a third take is immediate.
  (await a.take())();
});

test('two slots let two threads warm at once', async () => {
  const shared = createWarmTurns(3, 2);
  const [a, b, c] = [new WarmTurns(shared), new WarmTurns(shared), new WarmTurns(shared)];
  const gives = await Promise.all([a.take(), b.take()]);
  let cGot = false;
  const cTurn = c.take().then((g) => ((cGot = true), g));
  await tick();
  assert.equal(cGot, false);
  gives[1]();
  (await cTurn)();
  gives[0]();
});

test('everyoneReady waits for every thread to report', async () => {
  const shared = createWarmTurns(2, 1);
  const a = new WarmTurns(shared);
  const b = new WarmTurns(shared);
  a.markReady();
  let all = false;
  const waiting = a.everyoneReady().then(() => (all = true));
  await tick();
  assert.equal(all, false);
  b.markReady();
  await waiting;
  assert.equal(all, true);
});

test('a turn held by a thread that never gives it back is waited for only so long', async () => {
  const shared = createWarmTurns(2, 1);
  await new WarmTurns(shared).take(); // never given back, like a thread that died while warming
  let got = false;
  const turn = new WarmTurns(shared, 150).take().then((give) => ((got = true), give));
  await tick();
  assert.equal(got, false, 'it waited for the turn first');
  (await turn)();
});

test('the turns are kept across threads, in shared memory', async () => {
  const shared = createWarmTurns(2, 1);
  const here = new WarmTurns(shared);
  const give = await here.take();
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const counters = new Int32Array(workerData.counters);
     parentPort.postMessage(Atomics.load(counters, 0));
     const wait = Atomics.waitAsync(counters, 0, 1, 5000);
     Promise.resolve(wait.value).then(() => parentPort.postMessage(Atomics.load(counters, 0)));`,
    { eval: true, workerData: shared },
  );
  const seen: number[] = [];
  const twoMessages = new Promise<void>((resolve, reject) => {
    worker.on('message', (n: number) => {
      seen.push(n);
      if (seen.length === 1) give();
      if (seen.length === 2) resolve();
    });
    worker.once('error', reject);
  });
  await twoMessages;
  await worker.terminate();
  assert.deepEqual(seen, [1, 0], 'the other thread saw the turn taken, then given back');
});
