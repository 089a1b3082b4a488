import { describeError, silentLogger, type StoreLogger } from '../logger.ts';
import { MemorySharedState } from './memory.ts';
import { RedisLink, type RedisTarget } from './redis-link.ts';
import type { Lease, RateDecision, SharedEvent, SharedState } from './shared-state.ts';

const PROBE_MS = 500;
const START_WAIT_MS = 1_500;

/**
 * Shared state for several nodes, in Redis. While Redis is away the node keeps serving: rate limits and
 * leases are counted locally (each node then allows the limit on its own) and events reach this node's subscribers
 * only. Loss and recovery are each logged once; on recovery subscribers get a `resync` event, and the
 * other nodes too if this node had events it could not send.
 */
export class RedisSharedState implements SharedState {
  readonly kind = 'redis';
  private readonly link: RedisLink;
  private readonly local = new MemorySharedState();
  private readonly listeners = new Set<(event: SharedEvent) => void>();
  private up = false;
  private unsent = false;
  private closed = false;
  private starting = true;
  private probeTimer: NodeJS.Timeout | null = null;

  private constructor(
    target: RedisTarget,
    private readonly log: StoreLogger,
  ) {
    this.link = new RedisLink(target, {
      message: (event) => this.deliver(event),
      subscriptionRestored: () => this.deliver({ type: 'resync' }),
      commandsReady: () => {
        if (!this.up && !this.starting) void this.probe();
      },
      commandsLost: () => this.lost(new Error('connection to Redis closed')),
    });
  }

  /** Connects (waiting briefly), but starts in local mode rather than fail when Redis is not there. */
  static async open(target: RedisTarget, log: StoreLogger = silentLogger): Promise<RedisSharedState> {
    const state = new RedisSharedState(target, log);
    const connected = await state.link.waitForConnection(START_WAIT_MS);
    state.starting = false;
    if (connected) {
      state.up = true;
    } else {
      log.warn({ prefix: target.prefix }, 'Redis unreachable at start: using local rate limits and events until it answers');
      state.scheduleProbe();
    }
    return state;
  }

  /** Whether rate limits and events currently go through Redis. */
  get shared(): boolean {
    return this.up;
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    if (this.up) {
      try {
        return await this.link.hit(key, limit, windowMs);
      } catch (err) {
        this.lost(err);
      }
    }
    return this.local.hit(key, limit, windowMs);
  }

  async lease(key: string, limit: number, ttlMs: number): Promise<Lease | null> {
    if (this.up) {
      try {
        const id = await this.link.lease(key, limit, ttlMs);
        if (id === null) return null;
        // Renewals and the release go to Redis whatever happens meanwhile; one that fails lets the lease lapse.
        return {
          renew: () => this.link.renewLease(key, id, ttlMs).catch((err: unknown) => this.lost(err)),
          release: () => this.link.releaseLease(key, id).catch((err: unknown) => this.lost(err)),
        };
      } catch (err) {
        this.lost(err);
      }
    }
    return this.local.lease(key, limit, ttlMs);
  }

  async publish(event: SharedEvent): Promise<void> {
    // This node hears its own events at once, whatever happens to Redis.
    this.deliver(event);
    if (!this.up) {
      this.unsent = true;
      return;
    }
    try {
      await this.link.publish(event);
    } catch (err) {
      this.unsent = true;
      this.lost(err);
    }
  }

  subscribe(listener: (event: SharedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async ping(): Promise<void> {
    await this.link.ping();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.listeners.clear();
    this.link.close();
    await this.local.close();
  }

  private deliver(event: SharedEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.log.error({ err: describeError(err), event: event.type }, 'shared-state listener failed');
      }
    }
  }

  private lost(err: unknown): void {
    if (!this.up || this.closed) return;
    this.up = false;
    this.log.warn({ err: describeError(err) }, 'Redis unreachable: using local rate limits and events until it answers');
    // No answer at all: the network may have gone silent under a connection that still looks open.
    if (err instanceof Error && /timed out/i.test(err.message)) this.link.reconnect();
    this.scheduleProbe();
  }

  private scheduleProbe(): void {
    if (this.probeTimer || this.closed) return;
    this.probeTimer = setTimeout(() => void this.probe(), PROBE_MS);
    this.probeTimer.unref();
  }

  private async probe(): Promise<void> {
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = null;
    if (this.up || this.closed) return;
    try {
      await this.link.ping();
    } catch {
      this.scheduleProbe();
      return;
    }
    if (this.up || this.closed) return;
    this.up = true;
    this.log.info({}, 'Redis reachable again: rate limits and events are shared across nodes again');
    this.deliver({ type: 'resync' });
    if (this.unsent) {
      this.unsent = false;
      // Other nodes missed what this one published meanwhile; have them re-check.
      await this.link.publish({ type: 'resync' }).catch(() => {
        this.unsent = true;
      });
    }
  }
}
