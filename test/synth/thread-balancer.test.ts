import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ThreadBalancer, type Placement } from '../../src/synth/thread-balancer.ts';

interface FakeThread {
  id: number;
  currentUsage: number;
}

/** A pool of `n` fake threads whose usage follows what the balancer places and releases. */
function pool(n: number, perThread = 4) {
  const threads: FakeThread[] = Array.from({ length: n }, (_, i) => ({ id: i + 1, currentUsage: 0 }));
  const balancer = new ThreadBalancer(perThread, (task) => (task as { placement: Placement }).placement);
  const where = new Map<number, FakeThread>();
  let next = 1;
  return {
    threads,
    balancer,
    place(long: boolean): { id: number; thread: number | null } {
      const id = next++;
      const t = balancer.choose({ placement: { long, id } }, threads);
      if (t) {
        t.currentUsage++;
        where.set(id, t);
      }
      return { id, thread: t?.id ?? null };
    },
    end(id: number): void {
      const t = where.get(id);
      if (t) t.currentUsage--;
      balancer.release(id);
    },
  };
}

test('with three threads, long readings spread over two, and a short request goes to the third', () => {
  const p = pool(3);
  const longs = [p.place(true), p.place(true), p.place(true)];
  assert.equal(new Set(longs.map((l) => l.thread)).size, 2, 'the long readings use two threads');
  const short = p.place(false);
  assert.equal(
    longs.some((l) => l.thread === short.thread),
    false,
    'the short request goes to the thread without long readings',
  );
  assert.deepEqual([...p.balancer.loweredThreads()].sort(), [...new Set(longs.map((l) => l.thread))].sort());
});

test('with four threads, long readings spread over three; short requests take the fourth first', () => {
  const p = pool(4);
  const threads = Array.from({ length: 6 }, () => p.place(true).thread);
  assert.equal(new Set(threads).size, 3);
  for (const t of new Set(threads)) assert.equal(threads.filter((x) => x === t).length, 2, 'two on each');
  const short = p.place(false);
  assert.equal(threads.includes(short.thread), false);
});

test('the thread kept free of long readings stays free after they end; short requests share all threads when none runs', () => {
  const p = pool(3);
  const first = [p.place(true), p.place(true)];
  const lowered = new Set(first.map((l) => l.thread));
  for (const l of first) p.end(l.id);
  // Nothing long runs now, but two threads have lowered their priority for good: long readings go back to them.
  const again = Array.from({ length: 4 }, () => p.place(true));
  assert.ok(again.every((l) => lowered.has(l.thread)));
  for (const l of again) p.end(l.id);
  const shorts = Array.from({ length: 3 }, () => p.place(false).thread);
  assert.equal(new Set(shorts).size, 3, 'one on each thread: the least busy first');
  assert.equal(lowered.has(shorts[0]), false, 'of idle threads, the one at full priority first');
});

test('long readings fill the slots of all threads but one; short requests take the rest', () => {
  const p = pool(2, 2);
  const a = p.place(true);
  const b = p.place(true);
  assert.equal(a.thread, b.thread, 'both on one thread');
  assert.equal(p.place(true).thread, null, 'queued: that thread is full, the other is kept free of long readings');
  const s1 = p.place(false);
  const s2 = p.place(false);
  assert.notEqual(s1.thread, null);
  assert.notEqual(s1.thread, a.thread);
  assert.equal(s2.thread, s1.thread);
  assert.equal(p.place(false).thread, null, 'both threads full');
  p.end(a.id);
  p.end(s1.id);
  assert.equal(p.place(true).thread, b.thread, 'a long reading ended: the next one takes its place');
});

test('a short request takes a slot on a thread with long readings when the free thread is full', () => {
  const p = pool(2, 2);
  const a = p.place(true);
  const s1 = p.place(false);
  const s2 = p.place(false);
  assert.notEqual(s1.thread, a.thread);
  assert.equal(s2.thread, s1.thread);
  assert.equal(p.place(false).thread, a.thread, 'the one slot left');
});

test('released long readings free their thread; a single thread takes everything', () => {
  const p = pool(2);
  const a = p.place(true);
  p.end(a.id);
  // Nothing long runs now: the next long reading may go to either thread, and short ones spread by usage.
  const b = p.place(true);
  assert.notEqual(b.thread, null);
  const one = pool(1);
  assert.equal(one.place(true).thread, 1);
  assert.equal(one.place(false).thread, 1);
  assert.equal(one.place(true).thread, 1);
});

test('tasks go to warm threads while one has room, and to a warming thread only when none has', () => {
  const threads = [
    { id: 1, currentUsage: 0 },
    { id: 2, currentUsage: 0 },
  ];
  const warm = new Set([2]);
  const balancer = new ThreadBalancer(
    2,
    (task) => (task as { placement: Placement }).placement,
    (id) => warm.has(id),
  );
  const place = (id: number, long = false) => {
    const t = balancer.choose({ placement: { long, id } }, threads);
    if (t) t.currentUsage++;
    return t?.id ?? null;
  };
  assert.equal(place(1), 2, 'the warm thread, though both are idle');
  assert.equal(place(2, true), 2, 'a long reading too');
  assert.equal(place(3), 1, 'the warm thread is full: the warming one');
  warm.add(1);
  assert.equal(place(4), 1);
});
