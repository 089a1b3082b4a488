import { randomUUID } from 'node:crypto';
import type { Lease, RateDecision, SharedEvent, SharedState } from './shared-state.ts';

/** Shared state for a single node: a sliding-window log per key, leases with their expiry, and an in-process broadcast. */
export class MemorySharedState implements SharedState {
  readonly kind = 'memory';
  private readonly windows = new Map<string, { hits: number[]; windowMs: number }>();
  private readonly listeners = new Set<(event: SharedEvent) => void>();
  /** Per key: each held lease's id and when it lapses. */
  private readonly leases = new Map<string, Map<string, number>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    // Forget idle keys so one-off clients (many IPs) cannot grow the map without bound.
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    const now = this.now();
    let entry = this.windows.get(key);
    if (!entry) {
      entry = { hits: [], windowMs };
      this.windows.set(key, entry);
    }
    entry.windowMs = windowMs;
    const hits = entry.hits;
    while (hits.length > 0 && hits[0] <= now - windowMs) hits.shift();
    if (hits.length >= limit) {
      const retryAfterMs = hits[hits.length - limit] + windowMs - now;
      return { allowed: false, limit, remaining: 0, retryAfterMs, resetMs: hits[hits.length - 1] + windowMs - now };
    }
    hits.push(now);
    return { allowed: true, limit, remaining: limit - hits.length, retryAfterMs: 0, resetMs: hits[0] + windowMs - now };
  }

  async lease(key: string, limit: number, ttlMs: number): Promise<Lease | null> {
    const now = this.now();
    const held = this.leases.get(key) ?? new Map<string, number>();
    dropLapsed(held, now);
    if (held.size >= limit) return null;
    const id = randomUUID();
    held.set(id, now + ttlMs);
    this.leases.set(key, held);
    return {
      renew: async () => {
        if (held.has(id)) held.set(id, this.now() + ttlMs);
      },
      release: async () => {
        held.delete(id);
        if (held.size === 0 && this.leases.get(key) === held) this.leases.delete(key);
      },
    };
  }

  async publish(event: SharedEvent): Promise<void> {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // One failing subscriber must not keep the event from the others, nor fail the publisher.
      }
    }
  }

  subscribe(listener: (event: SharedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.listeners.clear();
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.windows) {
      const last = entry.hits[entry.hits.length - 1];
      if (last === undefined || last <= now - entry.windowMs) this.windows.delete(key);
    }
    for (const [key, held] of this.leases) {
      dropLapsed(held, now);
      if (held.size === 0) this.leases.delete(key);
    }
  }
}

/** Forgets the leases of `held` (id -> when it lapses) that have lapsed by `now`. */
function dropLapsed(held: Map<string, number>, now: number): void {
  for (const [id, until] of held) if (until <= now) held.delete(id);
}
