// The shared counts by which long readings step aside for a short request's first audio. Each CoreYield
// stands for one worker thread; here they share one test thread, so a pause runs to its bound.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CoreYield, createCoreYield, hasSpareThread, LONG_WORK_NICE, loweredThreads, pausesSoFar } from '../../src/synth/core-yield.ts';

function threads(count: number, cores: number) {
  const shared = createCoreYield(count, cores);
  return { shared, views: Array.from({ length: count }, () => new CoreYield(shared)) };
}

test('a spare thread exists only beyond the cores, and with two threads or more', () => {
  assert.equal(hasSpareThread(3, 2), true);
  assert.equal(hasSpareThread(2, 2), false);
  assert.equal(hasSpareThread(2, 4), false);
  assert.equal(hasSpareThread(1, 1), false);
  assert.equal(hasSpareThread(2, 1), true);
});

test('with every core taken by long readings, one of them pauses while a short request awaits its first audio', () => {
  const { shared, views } = threads(3, 2);
  const [a, b, c] = views;
  a.longStarted();
  b.longStarted();
  const firstAudio = c.shortStarted();
  a.stepAside();
  assert.equal(pausesSoFar(shared), 1, 'a paused');
  a.stepAside();
  assert.equal(pausesSoFar(shared), 1, 'not again before it has run a while');
  b.stepAside();
  assert.equal(pausesSoFar(shared), 2, 'b may pause once a no longer does');
  c.stepAside();
  assert.equal(pausesSoFar(shared), 2, 'the thread of the short request itself never pauses');
  firstAudio();
  firstAudio();
  const d = new CoreYield(shared);
  d.longStarted();
  d.stepAside();
  assert.equal(pausesSoFar(shared), 2, 'after the first audio, nobody pauses');
});

test('nobody pauses while a core is idle anyway, without a spare thread, or for a short request on a long thread', () => {
  const idleCore = threads(3, 2);
  idleCore.views[0].longStarted();
  idleCore.views[2].shortStarted();
  idleCore.views[0].stepAside();
  assert.equal(pausesSoFar(idleCore.shared), 0, 'one long reading and one short request fit on two cores');

  const noSpare = threads(2, 2);
  noSpare.views[0].longStarted();
  noSpare.views[1].longStarted();
  noSpare.views[1].shortStarted();
  noSpare.views[0].stepAside();
  assert.equal(pausesSoFar(noSpare.shared), 0, 'no thread beyond the cores: long readings never pause');

  const shared = threads(3, 2);
  const [a, b] = shared.views;
  a.longStarted();
  b.longStarted();
  b.shortStarted();
  a.stepAside();
  assert.equal(pausesSoFar(shared.shared), 0, 'the short request waits for its own thread’s piece: a pause elsewhere would not help it');
});

test('a long reading that ends twice is counted out once', () => {
  const { shared, views } = threads(3, 2);
  const [a, b, c] = views;
  a.longStarted();
  b.longStarted();
  const second = a.longStarted();
  second();
  second();
  c.shortStarted();
  a.stepAside();
  assert.equal(pausesSoFar(shared), 1, 'a still runs a long reading: both cores are taken, so it pauses');
});

test('where a thread may set its priority, it runs long work at a lower one instead of pausing, and restores it', () => {
  const shared = createCoreYield(3, 2);
  const nice = [0, 0, 0];
  const setter = (i: number) => (value: number) => {
    nice[i] = value;
    return true;
  };
  const [a, b, c] = [0, 1, 2].map((i) => new CoreYield(shared, setter(i)));
  const aEnded = a.longStarted();
  const aSecondEnded = a.longStarted();
  b.longStarted();
  assert.deepEqual(nice, [LONG_WORK_NICE, LONG_WORK_NICE, 0]);
  assert.equal(loweredThreads(shared), 2);
  const firstAudio = c.shortStarted();
  a.stepAside();
  b.stepAside();
  assert.equal(pausesSoFar(shared), 0, 'at a lower priority, the kernel gives the short request the core: no pause');
  firstAudio();
  aEnded();
  assert.equal(nice[0], LONG_WORK_NICE, 'a still runs a long reading');
  aSecondEnded();
  aSecondEnded();
  assert.equal(nice[0], 0, 'its last long reading ended: full priority again');
  assert.equal(loweredThreads(shared), 1);
});

test('a thread whose priority cannot be set pauses as before; without a spare thread nobody lowers', () => {
  const shared = createCoreYield(3, 2);
  const a = new CoreYield(shared, () => false);
  const b = new CoreYield(shared);
  const c = new CoreYield(shared);
  a.longStarted();
  b.longStarted();
  c.shortStarted();
  a.stepAside();
  assert.equal(pausesSoFar(shared), 1);
  assert.equal(loweredThreads(shared), 0);

  const noSpare = createCoreYield(2, 2);
  let asked = 0;
  new CoreYield(noSpare, () => ++asked > 0).longStarted();
  assert.equal(asked, 0, 'with no thread kept for short requests, every thread takes both kinds: none is lowered');
});
