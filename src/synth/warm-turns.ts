// Start-up warm-ups take turns. Every thread's warm-up (the engines' first runs, the default voice spoken
// once) is seconds of CPU, and the main thread needs a core meanwhile to load and build the HTTP side: with
// two cores, two warming threads and the main thread shared them and each finished late (ready after ~3 s).
// So at most `slots` threads warm at once (cores - 1: one core is left to the main thread), and the engines a
// thread loads after it reports ready wait until every thread has reported: the first thread is ready
// sooner, the service serves from it (the balancer prefers ready threads), and the others join after.
// The turns live in shared memory, so the threads keep them among themselves, without the main thread.

/** What the pool hands every thread (workerData). */
export interface WarmTurnsShared {
  /** Two counters: threads warming now, threads that have reported ready. */
  counters: SharedArrayBuffer;
  /** Threads that may warm at once. */
  slots: number;
  /** Threads in the pool. */
  threads: number;
}

const WARMING = 0;
const READY = 1;
/**
 * A turn or the others' readiness is never awaited longer than this: a thread that died while warming
 * (piscina replaces it) would otherwise hold the others back for good.
 */
const MAX_WAIT_MS = 10_000;

export function createWarmTurns(threads: number, slots: number): WarmTurnsShared {
  return { counters: new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT), slots: Math.max(1, slots), threads };
}

export class WarmTurns {
  private readonly counters: Int32Array;

  constructor(
    private readonly shared: WarmTurnsShared,
    private readonly maxWaitMs = MAX_WAIT_MS,
  ) {
    this.counters = new Int32Array(shared.counters);
  }

  /** Resolves when this thread may warm (a slot is free, or it waited maxWaitMs); then give() it back. */
  async take(): Promise<() => void> {
    const deadline = Date.now() + this.maxWaitMs;
    for (;;) {
      const warming = Atomics.load(this.counters, WARMING);
      if (warming < this.shared.slots) {
        if (Atomics.compareExchange(this.counters, WARMING, warming, warming + 1) === warming) return () => this.give();
        continue;
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        Atomics.add(this.counters, WARMING, 1);
        return () => this.give();
      }
      await this.changeOf(WARMING, warming, left);
    }
  }

  /** This thread has reported ready. */
  markReady(): void {
    Atomics.add(this.counters, READY, 1);
    Atomics.notify(this.counters, READY);
  }

  /** Resolves when every thread has reported ready (or after maxWaitMs). */
  async everyoneReady(): Promise<void> {
    const deadline = Date.now() + this.maxWaitMs;
    for (;;) {
      const ready = Atomics.load(this.counters, READY);
      const left = deadline - Date.now();
      if (ready >= this.shared.threads || left <= 0) return;
      await this.changeOf(READY, ready, left);
    }
  }

  private give(): void {
    Atomics.sub(this.counters, WARMING, 1);
    Atomics.notify(this.counters, WARMING);
  }

  /** Resolves when counter `index` no longer holds `value` (or after `ms`), without blocking the event loop. */
  private async changeOf(index: number, value: number, ms: number): Promise<void> {
    const wait = Atomics.waitAsync(this.counters, index, value, ms);
    if (!wait.async) return;
    // A pending waitAsync does not keep a thread's event loop alive, nor is its time-out sure to come while
    // nothing else does: the timer keeps the loop alive and ends the wait itself.
    let alive: NodeJS.Timeout | undefined;
    try {
      await Promise.race([wait.value, new Promise<void>((resolve) => (alive = setTimeout(resolve, ms)))]);
    } finally {
      clearTimeout(alive);
    }
  }
}
