// Long readings step aside for a short request's first audio. The pool runs one thread more than there are
// cores and keeps long readings off one of them (thread-balancer.ts), so a short request starts at once on a
// thread with no long piece under way; but with a long piece rendering on every core, that thread shared the
// CPU with them, and a short sentence's first audio took 2.5x as long as on an idle server. So while a short
// request on a thread without long readings awaits its first audio, long-reading threads pause inside their
// render (the engines call a checkpoint every few milliseconds) until a core is free for it and one for the
// main thread that answers it: each for at most MAX_PAUSE_MS, and not again before it has run MIN_RUN_MS, so
// a steady stream of short requests slows long readings without stopping them. When the long readings leave
// a core idle anyway, nobody pauses.
// Measured (2 cores, 16 clients of 2 000-character texts, a short sentence every ~250 ms): the short request's
// time to first audio inside its thread was 15-17 ms idle; under that load p90 26-27 ms with one long thread
// pausing, 20-24 ms with both.
// A pause leaves a core idle for its length, though: ~8 % of long throughput with a short request every
// 250 ms. Where a thread may lower its CPU priority and raise it again (thread-priority.ts: Linux, with
// CAP_SYS_NICE or RLIMIT_NICE >= 20), a thread runs its long work at LONG_WORK_NICE instead and never pauses:
// the kernel gives a short request's thread and the main thread the core they need, and long work every
// cycle they leave, so no core idles while work waits.
// The counts live in shared memory, so threads keep them among themselves, without the main thread.

import type { SetOwnNice } from './thread-priority.ts';

/** What the pool hands every thread (workerData). */
export interface CoreYieldShared {
  /** Counters: short requests awaiting first audio, long threads paused now, threads with a long reading, pauses so far, threads at lower priority. */
  counters: SharedArrayBuffer;
  /** Cores the threads share. */
  cores: number;
  /** The pool has a thread beyond the cores, kept free of long readings (hasSpareThread): only then do they pause. */
  spareThread: boolean;
}

const PRESSING = 0;
const PAUSED = 1;
const LONG_THREADS = 2;
const PAUSES = 3;
const LOWERED = 4;
const COUNTERS = 5;

/** The nice value of a thread while it runs long work (where threads may change theirs, thread-priority.ts). */
export const LONG_WORK_NICE = 10;

/** A pause never lasts longer than this (a short request's first audio takes 10-30 ms of one core). */
const MAX_PAUSE_MS = 40;
/** A thread that paused runs at least this long before it pauses again. */
const MIN_RUN_MS = 60;

export function createCoreYield(threads: number, cores: number): CoreYieldShared {
  return { counters: new SharedArrayBuffer(COUNTERS * Int32Array.BYTES_PER_ELEMENT), cores, spareThread: hasSpareThread(threads, cores) };
}

/** Whether a pool of `threads` on `cores` keeps a thread for short requests (it has a spare thread). */
export function hasSpareThread(threads: number, cores: number): boolean {
  return threads > 1 && threads > cores;
}

/** Times a long-reading thread has paused for a short request, over all threads. */
export function pausesSoFar(shared: CoreYieldShared): number {
  return Atomics.load(new Int32Array(shared.counters), PAUSES);
}

/** Threads running long work at a lower priority now (LONG_WORK_NICE). */
export function loweredThreads(shared: CoreYieldShared): number {
  return Atomics.load(new Int32Array(shared.counters), LOWERED);
}

/** One thread's view of the shared counts. */
export class CoreYield {
  private readonly counters: Int32Array;
  /** Long readings running on this thread. */
  private longHere = 0;
  /** Short requests of this thread counted as pressing. */
  private pressingHere = 0;
  private resumedAt = -Infinity;
  /** This thread runs its long work at a lower CPU priority (setNice): it never needs to pause. */
  private lowered = false;

  constructor(
    private readonly shared: CoreYieldShared,
    /** Sets the calling thread's nice value (thread-priority.ts); threads pass it where they may change theirs. */
    private readonly setNice?: SetOwnNice,
  ) {
    this.counters = new Int32Array(shared.counters);
  }

  /** A long reading (or a job's piece) starts on this thread; call the returned function when it ends. */
  longStarted(): () => void {
    if (this.longHere++ === 0) {
      Atomics.add(this.counters, LONG_THREADS, 1);
      if (this.setNice && this.shared.spareThread && this.setNice(LONG_WORK_NICE)) {
        this.lowered = true;
        Atomics.add(this.counters, LOWERED, 1);
      }
    }
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.longHere > 0) return;
      Atomics.sub(this.counters, LONG_THREADS, 1);
      if (this.lowered) {
        this.lowered = false;
        this.setNice?.(0);
        Atomics.sub(this.counters, LOWERED, 1);
      }
    };
  }

  /**
   * A short request starts on this thread; call the returned function at its first audio (or its end). It
   * counts only on a thread with no long reading: here it would wait for this thread's long piece anyway,
   * and a pause elsewhere would not bring its audio sooner.
   */
  shortStarted(): () => void {
    if (!this.shared.spareThread || this.longHere > 0) return () => undefined;
    this.pressingHere++;
    Atomics.add(this.counters, PRESSING, 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.pressingHere--;
      Atomics.sub(this.counters, PRESSING, 1);
      Atomics.notify(this.counters, PRESSING);
    };
  }

  /**
   * Called by a long reading between pieces and from inside the engine's render: pauses this thread while a
   * short request elsewhere awaits its first audio and every core is taken.
   */
  stepAside(): void {
    if (this.lowered || Atomics.load(this.counters, PRESSING) === 0 || this.pressingHere > 0) return;
    // Only when every core is busy (the long threads and the short request's thread); then as many pause as
    // leave a core to the short request and one to the main thread, which answers it.
    const longThreads = Atomics.load(this.counters, LONG_THREADS);
    if (longThreads + 1 <= this.shared.cores) return;
    const mayPause = longThreads + 2 - this.shared.cores;
    const start = performance.now();
    if (start - this.resumedAt < MIN_RUN_MS) return;
    for (;;) {
      const paused = Atomics.load(this.counters, PAUSED);
      if (paused >= mayPause) return;
      if (Atomics.compareExchange(this.counters, PAUSED, paused, paused + 1) === paused) break;
    }
    try {
      for (;;) {
        const pressing = Atomics.load(this.counters, PRESSING);
        const left = MAX_PAUSE_MS - (performance.now() - start);
        if (pressing === 0 || left <= 0) break;
        Atomics.wait(this.counters, PRESSING, pressing, left);
      }
    } finally {
      Atomics.sub(this.counters, PAUSED, 1);
      this.resumedAt = performance.now();
      Atomics.add(this.counters, PAUSES, 1);
    }
  }
}
