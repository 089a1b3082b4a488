// The background priority class: pieces of long-form jobs take only the slots no interactive request waits
// for, and are not counted against the per-key limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FairScheduler } from '../../src/speech/scheduler.ts';

const open = (): AbortSignal => new AbortController().signal;

test('a freed slot goes to a waiting interactive request before any background one, whatever arrived first', async () => {
  const s = new FairScheduler({ slots: 1, maxPerKey: 2 });
  const release = await s.acquire('key:busy', open());
  const order: string[] = [];
  const background = [1, 2].map((i) =>
    s.acquire('background:job', open(), undefined, 'background').then((r) => (order.push(`background ${i}`), r)),
  );
  const interactive = s.acquire('key:reader', open()).then((r) => (order.push('interactive'), r));
  release();
  (await interactive)();
  (await background[0])();
  (await background[1])();
  assert.deepEqual(order, ['interactive', 'background 1', 'background 2']);
});

test('background work is not limited by MAX_CONCURRENT_PER_KEY, and a waiting one leaves when aborted', async () => {
  const s = new FairScheduler({ slots: 8, maxPerKey: 1 });
  const held = await Promise.all([1, 2, 3].map(() => s.acquire('background:user:u', open(), undefined, 'background')));
  assert.equal(s.stats().running, 3);
  held.forEach((r) => r());
  const full = new FairScheduler({ slots: 1, maxPerKey: 1 });
  const release = await full.acquire('key:a', open());
  const abort = new AbortController();
  const waiting = full.acquire('background:x', abort.signal, undefined, 'background');
  abort.abort(new Error('cancelled'));
  await assert.rejects(waiting, /cancelled/);
  assert.equal(full.stats().waiting, 0);
  release();
});
