import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ThreadBalancer, type Placement } from '../../src/synth/thread-balancer.ts';

interface FakeThread {
  id: number;
  currentUsage: number;
}

/** A pool of `n` fake threads whose usage follows what the balancer places and releases. */
function pool(n: number, perThread = 4, keepOneForShort = false) {
  const threads: FakeThread[] = Array.from({ length: n }, (_, i) => ({ id: i + 1, currentUsage: 0 }));
  const balancer = new ThreadBalancer(
    perThread,
    (task) => (task as { placement: Placement }).placement,
    () => true,
    keepOneForShort,
  );
  const where = new Map<number, FakeThread>();
  let next = 1;
  return {
    threads,
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

/** `n` threads (ids 1..n) of which those in `warmIds` are warm; `place` returns the chosen thread's id, or null. */
function warming(n: number, warmIds: number[], perThread: number) {
  const threads: FakeThread[] = Array.from({ length: n }, (_, i) => ({ id: i + 1, currentUsage: 0 }));
  const warm = new Set(warmIds);
  const balancer = new ThreadBalancer(
    perThread,
    (task) => (task as { placement: Placement }).placement,
    (id) => warm.has(id),
  );
  const place = (id: number, long = false): number | null => {
    const t = balancer.choose({ placement: { long, id } }, threads);
    if (t) t.currentUsage++;
    return t?.id ?? null;
  };
  return { warm, place };
}

test('with two threads, long readings spread over both, and a short request goes where the fewest run', () => {
  const p = pool(2);
  const longs = [p.place(true), p.place(true), p.place(true)];
  assert.equal(new Set(longs.map((l) => l.thread)).size, 2, 'the long readings use both threads');
  // Two on the first thread they took, one on the other.
  const crowded = longs[0].thread;
  const short = p.place(false);
  assert.notEqual(short.thread, crowded, 'the short request goes to the thread with one long reading');
});

test('with four threads, long readings spread over all four', () => {
  const p = pool(4);
  const threads = Array.from({ length: 6 }, () => p.place(true).thread);
  assert.equal(new Set(threads).size, 4);
  const short = p.place(false);
  assert.equal(threads.filter((t) => t === short.thread).length, 1, 'the short request goes to a thread with one long reading, not two');
});

test("long readings never hold more than all but one thread's worth of slots; short requests take the rest", () => {
  const p = pool(2, 2);
  const a = p.place(true);
  const b = p.place(true);
  assert.notEqual(a.thread, b.thread, 'one on each thread');
  assert.equal(p.place(true).thread, null, "queued: two slots (one thread's worth) are left for short requests");
  const s1 = p.place(false);
  const s2 = p.place(false);
  assert.notEqual(s1.thread, null);
  assert.notEqual(s2.thread, null);
  assert.notEqual(s1.thread, s2.thread);
  assert.equal(p.place(false).thread, null, 'both threads full');
  p.end(a.id);
  p.end(s1.id);
  assert.notEqual(p.place(true).thread, null, 'a long reading ended: the next one may start');
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
  const { warm, place } = warming(2, [2], 2);
  assert.equal(place(1), 2, 'the warm thread, though both are idle');
  assert.equal(place(2, true), 2, 'a long reading too');
  assert.equal(place(3), 1, 'the warm thread is full: the warming one');
  warm.add(1);
  assert.equal(place(4), 1);
});

test('with a thread beyond the cores, long readings spread over all threads but one, and short requests go to that one', () => {
  const p = pool(3, 8, true);
  const longs = Array.from({ length: 6 }, () => p.place(true));
  const used = new Set(longs.map((l) => l.thread));
  assert.equal(used.size, 2, 'two threads carry the long readings');
  const free = [1, 2, 3].find((t) => !used.has(t));
  assert.equal(p.place(false).thread, free, 'a short request goes to the thread without long readings');
  // Once the long readings of one thread end, new ones take a free thread again, but never the last one.
  let running = longs.filter((l) => l.thread !== longs[0].thread);
  for (const l of longs.filter((l) => l.thread === longs[0].thread)) p.end(l.id);
  running = running.concat(Array.from({ length: 4 }, () => p.place(true)));
  assert.ok(running.every((l) => l.thread !== null));
  assert.equal(new Set(running.map((l) => l.thread)).size, 2, 'still two threads carry them');
  const kept = pool(2, 8, true);
  kept.place(true);
  const second = kept.place(true);
  assert.equal(second.thread, kept.place(true).thread, 'of two threads, one carries every long reading');
});

test('a long reading takes a thread still warming rather than share a warm one with another long reading', () => {
  const { place } = warming(3, [1], 4);
  assert.equal(place(1, true), 1, 'the first long reading: the warm thread');
  const second = place(2, true);
  assert.notEqual(second, 1, 'the second: a warming thread, not beside the first');
  assert.equal(place(3), 1, 'a short request still goes to the warm thread');
  const third = place(4, true);
  assert.ok(third !== 1 && third !== second, `the third: the other warming thread (${third})`);
  assert.equal(place(5, true), 1, 'every thread has one: the warm thread again');
});
