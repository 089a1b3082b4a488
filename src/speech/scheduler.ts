// The fair queue in front of the worker pool: who renders next when every synthesis slot is taken.
import { AppError } from '../errors.ts';
import type { SharedState } from '../store/shared-state/shared-state.ts';

export interface SchedulerOptions {
  /**
   * Syntheses rendered at once: the pool's own capacity (workers x tasks per worker). More would only queue
   * inside piscina, first come first served, where this scheduler could no longer choose the order.
   */
  slots: number;
  /** Syntheses one key (or one signed-in user) may have admitted, running or waiting; the next is refused. */
  maxPerKey: number;
  /**
   * Where a key's syntheses are counted across nodes (Redis with several): each admitted synthesis holds one
   * of maxPerKey leases. Without it the count is this node's alone.
   */
  shared?: Pick<SharedState, 'lease'>;
}

/** Frees the slot a granted synthesis held; calling it again does nothing. */
export type ReleaseSlot = () => void;

/**
 * Interactive syntheses (a request someone waits for) go before background ones (pieces of long-form jobs), which
 * get only the slots no interactive request is waiting for. Background work bounds its own concurrency, so it
 * is not counted against the per-key limit.
 */
export type Priority = 'interactive' | 'background';

interface Waiter {
  key: string;
  background: boolean;
  /** Arrival order: among keys that run as many syntheses, the one waiting longest goes first. */
  seq: number;
  grant: (release: ReleaseSlot) => void;
  onQueued?: (position: number) => void;
  /** The last position told to onQueued (0: none yet). */
  told: number;
}

/** Whole seconds a refused client waits before trying again: a short synthesis slot frees in about that. */
export const CONCURRENCY_RETRY_AFTER_SECONDS = 1;
/** A lease lapses this long after its last renewal: how long a dead node's syntheses still count. */
const LEASE_TTL_MS = 30_000;
const LEASE_RENEW_MS = 10_000;

export interface SchedulerStats {
  running: number;
  waiting: number;
  slots: number;
}

/**
 * Round-robin per key, weighted by what each key already runs: when a slot frees, it goes to the waiting key
 * that runs the fewest syntheses now, among those the one served longest ago (a key new to the queue first),
 * then its oldest request. A key that keeps many long requests going thus only gets the slots nobody else asks
 * for, and a newcomer's request is next in line at once, however many the heavy key has waiting.
 *
 * A granted synthesis holds its slot until it ends. That is cheap because the worker renders at most ~2 s of
 * audio ahead of its consumer, so a slot held by a slow listener costs memory, not CPU; the pool is sized for
 * many slots (64 with 2 workers), and the workers interleave the running syntheses chunk by chunk.
 *
 * Each node schedules its own workers. MAX_CONCURRENT_PER_KEY counts a key's syntheses on all nodes when the
 * scheduler has shared state (Redis): a lease per admitted synthesis, renewed while it lasts.
 */
export class FairScheduler {
  private running = 0;
  /** Syntheses each key runs now. */
  private readonly runningByKey = new Map<string, number>();
  /** Syntheses each key has admitted (running + waiting). */
  private readonly admitted = new Map<string, number>();
  /** When each key was last granted a slot (a grant counter), kept while the key has anything admitted. */
  private readonly lastServed = new Map<string, number>();
  private grants = 0;
  private waiting: Waiter[] = [];
  private seq = 0;

  constructor(private readonly options: SchedulerOptions) {
    if (!(options.slots >= 1) || !(options.maxPerKey >= 1)) throw new RangeError('slots and maxPerKey must be at least 1');
  }

  stats(): SchedulerStats {
    return { running: this.running, waiting: this.waiting.length, slots: this.options.slots };
  }

  /**
   * Resolves with the slot's release once `key` may render. Throws `concurrency_limited` (429) when the key
   * already has its share admitted, and the signal's reason when the caller leaves while waiting. `onQueued`
   * hears the request's place in line (1 = next) when it has to wait and whenever that place changes.
   */
  async acquire(
    key: string,
    signal: AbortSignal,
    onQueued?: (position: number) => void,
    priority: Priority = 'interactive',
  ): Promise<ReleaseSlot> {
    signal.throwIfAborted();
    if (priority === 'background') return this.admit(key, signal, onQueued, true);
    if ((this.admitted.get(key) ?? 0) >= this.options.maxPerKey) throw this.limited();
    if (!this.options.shared) return this.admit(key, signal, onQueued);
    const lease = await this.options.shared.lease(`concurrency:${key}`, this.options.maxPerKey, LEASE_TTL_MS);
    if (lease === null) throw this.limited();
    // Counted again: other requests of this key may have been admitted while the lease was asked for.
    if ((this.admitted.get(key) ?? 0) >= this.options.maxPerKey || signal.aborted) {
      void lease.release();
      signal.throwIfAborted();
      throw this.limited();
    }
    const renewal = setInterval(() => void lease.renew(), LEASE_RENEW_MS);
    renewal.unref();
    const giveBack = (): void => {
      clearInterval(renewal);
      void lease.release();
    };
    try {
      const release = await this.admit(key, signal, onQueued);
      return () => {
        release();
        giveBack();
      };
    } catch (err) {
      giveBack();
      throw err;
    }
  }

  private limited(): AppError {
    return new AppError(
      'concurrency_limited',
      `at most ${this.options.maxPerKey} syntheses may run at once per API key (MAX_CONCURRENT_PER_KEY); retry when one has finished`,
      { 'Retry-After': String(CONCURRENCY_RETRY_AFTER_SECONDS) },
    );
  }

  /** Counts the request as the key's and grants it a slot now or when its turn comes. */
  private admit(key: string, signal: AbortSignal, onQueued?: (position: number) => void, background = false): Promise<ReleaseSlot> {
    this.admitted.set(key, (this.admitted.get(key) ?? 0) + 1);
    if (this.running < this.options.slots && this.waiting.length === 0) return Promise.resolve(this.start(key));
    return new Promise<ReleaseSlot>((resolve, reject) => {
      const waiter: Waiter = { key, background, seq: this.seq++, grant: resolve, onQueued, told: 0 };
      const leave = (): void => {
        const i = this.waiting.indexOf(waiter);
        if (i < 0) return;
        this.waiting.splice(i, 1);
        this.unadmit(key);
        reject(signal.reason);
        this.tellPositions();
      };
      signal.addEventListener('abort', leave, { once: true });
      waiter.grant = (release) => {
        signal.removeEventListener('abort', leave);
        resolve(release);
      };
      this.waiting.push(waiter);
      this.tellPositions();
    });
  }

  private start(key: string): ReleaseSlot {
    this.running++;
    this.lastServed.set(key, ++this.grants);
    this.runningByKey.set(key, (this.runningByKey.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      this.decrement(this.runningByKey, key);
      this.unadmit(key);
      this.dispatch();
    };
  }

  private dispatch(): void {
    let granted = false;
    while (this.running < this.options.slots && this.waiting.length > 0) {
      const next = this.order(1)[0] as Waiter;
      this.waiting.splice(this.waiting.indexOf(next), 1);
      next.grant(this.start(next.key));
      granted = true;
    }
    if (granted) this.tellPositions();
  }

  /**
   * The order the waiting requests would be served in if nothing else arrived: repeatedly the key that runs the
   * fewest (counting those already picked), then the one served longest ago (never: first), then the oldest
   * request. `limit` stops early.
   */
  private order(limit = Number.POSITIVE_INFINITY): Waiter[] {
    const runs = new Map(this.runningByKey);
    const served = new Map(this.lastServed);
    let grants = this.grants;
    const queues = new Map<string, Waiter[]>();
    for (const w of [...this.waiting].sort((a, b) => a.seq - b.seq)) {
      const q = queues.get(w.key);
      if (q) q.push(w);
      else queues.set(w.key, [w]);
    }
    const rank = (key: string, head: Waiter): [number, number, number] => [runs.get(key) ?? 0, served.get(key) ?? 0, head.seq];
    const out: Waiter[] = [];
    while (out.length < limit && queues.size > 0) {
      let best: { key: string; head: Waiter; rank: [number, number, number] } | undefined;
      // Background work waits while any interactive request does.
      const interactive = [...queues.values()].some((q) => !(q[0] as Waiter).background);
      for (const [key, q] of queues) {
        const head = q[0] as Waiter;
        if (interactive && head.background) continue;
        const r = rank(key, head);
        if (
          !best ||
          r[0] < best.rank[0] ||
          (r[0] === best.rank[0] && (r[1] < best.rank[1] || (r[1] === best.rank[1] && r[2] < best.rank[2])))
        ) {
          best = { key, head, rank: r };
        }
      }
      const pick = best as { key: string; head: Waiter; rank: [number, number, number] };
      out.push(pick.head);
      runs.set(pick.key, pick.rank[0] + 1);
      served.set(pick.key, ++grants);
      const q = queues.get(pick.key) as Waiter[];
      q.shift();
      if (q.length === 0) queues.delete(pick.key);
    }
    return out;
  }

  /** Tells every waiting request whose place changed where it stands now. */
  private tellPositions(): void {
    if (!this.waiting.some((w) => w.onQueued)) return;
    this.order().forEach((w, i) => {
      const position = i + 1;
      if (w.onQueued && w.told !== position) {
        w.told = position;
        try {
          w.onQueued(position);
        } catch {
          // A door's notification failing (a socket already gone) must not stall the queue.
        }
      }
    });
  }

  /** A key with nothing left admitted forgets its turn: back after a pause, it is as new. */
  private unadmit(key: string): void {
    this.decrement(this.admitted, key);
    if (!this.admitted.has(key)) this.lastServed.delete(key);
  }

  private decrement(map: Map<string, number>, key: string): void {
    const n = (map.get(key) ?? 0) - 1;
    if (n > 0) map.set(key, n);
    else map.delete(key);
  }
}
