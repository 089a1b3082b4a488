/** The outcome of counting one request against a limit. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until a request would be allowed again (0 when allowed). */
  retryAfterMs: number;
  /** Milliseconds until the window holds no counted request. */
  resetMs: number;
}

/** One of a limited number of uses of a key held at once, across nodes. */
export interface Lease {
  /** Keeps the lease for another ttl from now (a use that lasts longer renews it); never throws. */
  renew(): Promise<void>;
  /** Gives it back; never throws (a lease that could not be given back lapses after its ttl). */
  release(): Promise<void>;
}

/**
 * Events every node must hear about at once. `resync` is raised locally when this node may have missed
 * events (its link to the other nodes was lost and is back): re-check whatever depends on them, e.g. an
 * open stream asks `apiKeys.isActive` again.
 */
export type SharedEvent =
  | { type: 'key-revoked'; keyId: string }
  | { type: 'session-ended'; idHash: string }
  /** A long-form job progressed, finished or was deleted: whoever watches it reads it again. */
  | { type: 'job-changed'; jobId: string }
  | { type: 'resync' };

/**
 * State that must agree across nodes: rate-limit counters and a broadcast channel. In-memory for one node,
 * Redis for several; both pass the same shared suite.
 */
export interface SharedState {
  readonly kind: string;
  /** Counts a hit for `key` in a sliding window, refusing it when `limit` hits already fall in the window. */
  hit(key: string, limit: number, windowMs: number): Promise<RateDecision>;
  /**
   * Takes one of `limit` leases on `key`, or null when that many are held. A lease lapses `ttlMs` after it
   * was taken or last renewed, so a node that dies without releasing frees its leases in that time.
   */
  lease(key: string, limit: number, ttlMs: number): Promise<Lease | null>;
  /** Delivers to every subscriber on every node, this one included; never throws. */
  publish(event: SharedEvent): Promise<void>;
  /** Returns a function that unsubscribes. */
  subscribe(listener: (event: SharedEvent) => void): () => void;
  /** Throws unless the backing store answers (readiness checks). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
