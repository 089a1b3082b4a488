import { randomBytes } from 'node:crypto';
import { Redis, type RedisOptions, type Result } from 'ioredis';
import type { RateDecision, SharedEvent } from './shared-state.ts';

export interface RedisTarget {
  url: string;
  /** Prepended to every key and to the channel, so several deployments (or tests) share one Redis. */
  prefix: string;
}

export const DEFAULT_REDIS_PREFIX = 'voxsmith:';
const PREFIX = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Reads `REDIS_URL`; a `prefix` query parameter (`redis://host:6379/0?prefix=eu1:`) sets the key prefix. */
export function parseRedisUrl(redisUrl: string, override?: string): RedisTarget {
  const url = new URL(redisUrl);
  const fromUrl = url.searchParams.get('prefix');
  url.searchParams.delete('prefix');
  const prefix = override ?? (fromUrl && fromUrl.length > 0 ? fromUrl : DEFAULT_REDIS_PREFIX);
  if (!PREFIX.test(prefix)) throw new Error(`Redis key prefix "${prefix}" must be 1-64 of A-Z a-z 0-9 _ . : -`);
  return { url: url.toString(), prefix };
}

// The scripts below, as commands of the command connection (ioredis sends each by its hash, and the script itself
// where the server does not know it yet: first use, a restart, SCRIPT FLUSH).
declare module 'ioredis' {
  interface RedisCommander<Context> {
    voxsmithHit(key: string, limit: number, windowMs: number, member: string): Result<unknown, Context>;
    voxsmithLease(key: string, limit: number, ttlMs: number, member: string): Result<unknown, Context>;
    voxsmithRenew(key: string, ttlMs: number, member: string): Result<unknown, Context>;
  }
}

/** `now`: Redis's own clock in milliseconds, so nodes with skewed clocks agree. */
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * Sliding-window log in a sorted set: one member per counted request, scored by Redis's clock. Trim, count,
 * then add only when under the limit, all in one script: Redis runs scripts one at a time, so N nodes together
 * allow exactly the limit. The replies mirror the in-memory implementation: {allowed, remaining, retryAfterMs,
 * resetMs}.
 */
const HIT = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
${NOW}
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
if count >= limit then
  local blocking = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
  local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  return {0, 0, tonumber(blocking[2]) + window - now, tonumber(newest[2]) + window - now}
end
redis.call('ZADD', key, now, ARGV[3])
redis.call('PEXPIRE', key, window)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return {1, limit - count - 1, 0, tonumber(oldest[2]) + window - now}
`;

/**
 * Leases in a sorted set per key: one member per held lease, scored by when it lapses (Redis's clock).
 * Drop the lapsed, count, add when under the limit: one script, so N nodes together hold at most the limit.
 */
const LEASE = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
${NOW}
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
if redis.call('ZCARD', key) >= limit then return 0 end
redis.call('ZADD', key, now + ttl, ARGV[3])
redis.call('PEXPIRE', key, ttl)
return 1
`;

/** Moves a held lease's expiry to now + ttl (a lapsed one is not brought back). */
const RENEW = `
local key = KEYS[1]
local ttl = tonumber(ARGV[1])
${NOW}
if redis.call('ZADD', key, 'XX', 'CH', now + ttl, ARGV[2]) == 1 then redis.call('PEXPIRE', key, ttl) end
return 1
`;

// Fail fast rather than queue: while Redis is away every command errors at once and the caller falls
// back to local state, instead of requests piling up behind a reconnect.
const COMMAND_OPTIONS: RedisOptions = {
  connectTimeout: 1_000,
  commandTimeout: 1_000,
  maxRetriesPerRequest: 0,
  enableOfflineQueue: false,
  keepAlive: 5_000,
  retryStrategy: (times: number) => Math.min(100 * 2 ** Math.min(times, 4), 1_000),
};

function isSharedEvent(value: unknown): value is SharedEvent {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  if (v.type === 'key-revoked') return typeof v.keyId === 'string';
  if (v.type === 'session-ended') return typeof v.idHash === 'string';
  if (v.type === 'job-changed') return typeof v.jobId === 'string';
  return v.type === 'resync';
}

export interface RedisLinkHandlers {
  /** An event published by another node. */
  message(event: SharedEvent): void;
  /** The subscription was lost and is back: events may have been missed meanwhile. */
  subscriptionRestored(): void;
  /** The command connection (re)connected. */
  commandsReady(): void;
  /** The command connection dropped (it reconnects by itself). */
  commandsLost(): void;
}

/** The two Redis connections a node keeps (commands, subscription) and the operations on them; may throw. */
export class RedisLink {
  private readonly client: Redis;
  private readonly subscriber: Redis;
  private readonly channel: string;
  private readonly nodeId = randomBytes(8).toString('hex');
  private seq = 0;
  private subscriptionLost = false;
  private readonly subscribed: Promise<boolean>;

  constructor(
    readonly target: RedisTarget,
    private readonly handlers: RedisLinkHandlers,
  ) {
    this.channel = `${target.prefix}events`;
    this.client = new Redis(target.url, COMMAND_OPTIONS);
    this.client.defineCommand('voxsmithHit', { numberOfKeys: 1, lua: HIT });
    this.client.defineCommand('voxsmithLease', { numberOfKeys: 1, lua: LEASE });
    this.client.defineCommand('voxsmithRenew', { numberOfKeys: 1, lua: RENEW });
    // The subscription must come back after a reconnect, so this connection may queue. It is subscribed again here,
    // not by ioredis's autoResubscribe: nothing awaits the SUBSCRIBE that one sends, so a close while it was in
    // flight rejected it unhandled.
    this.subscriber = new Redis(target.url, {
      ...COMMAND_OPTIONS,
      commandTimeout: undefined,
      enableOfflineQueue: true,
      autoResubscribe: false,
    });
    // Connection errors surface as failed commands; without listeners ioredis would log them itself.
    this.client.on('error', () => {});
    this.subscriber.on('error', () => {});
    this.client.on('ready', () => handlers.commandsReady());
    this.client.on('close', () => handlers.commandsLost());
    this.subscriber.on('close', () => {
      this.subscriptionLost = true;
    });
    this.subscriber.on('ready', () => {
      if (!this.subscriptionLost) return;
      // Restored once the subscription is in place again: events published from then on are not missed.
      this.subscriber.subscribe(this.channel).then(
        () => {
          if (!this.subscriptionLost) return;
          this.subscriptionLost = false;
          handlers.subscriptionRestored();
        },
        // Dropped again before the reply: the next 'ready' subscribes again.
        () => undefined,
      );
    });
    this.subscriber.on('message', (channel: string, text: string) => this.receive(channel, text));
    this.subscribed = this.subscriber.subscribe(this.channel).then(
      () => true,
      () => false,
    );
  }

  get connected(): boolean {
    return this.client.status === 'ready';
  }

  /**
   * Resolves true once commands can be sent and the subscription is in place (so no event published from
   * now on is missed), false when the first attempt fails or takes longer than `timeoutMs`.
   */
  async waitForConnection(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const both = this.commandsConnected().then((ok) => (ok ? this.subscribed : false));
    return Promise.race([both, timeout]).finally(() => clearTimeout(timer));
  }

  private commandsConnected(): Promise<boolean> {
    if (this.connected) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        this.client.off('ready', onReady);
        this.client.off('error', onError);
        resolve(ok);
      };
      const onReady = () => done(true);
      const onError = () => done(false);
      this.client.once('ready', onReady);
      this.client.once('error', onError);
    });
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    const reply = await this.client.voxsmithHit(`${this.target.prefix}rl:${key}`, limit, windowMs, `${this.nodeId}:${++this.seq}`);
    if (!Array.isArray(reply) || reply.length !== 4 || !reply.every((n) => typeof n === 'number')) {
      throw new Error('unexpected reply from the rate-limit script');
    }
    const [allowed, remaining, retryAfterMs, resetMs] = reply as number[];
    return { allowed: allowed === 1, limit, remaining, retryAfterMs, resetMs };
  }

  /** Takes a lease; its member id when granted, null when `limit` are held. */
  async lease(key: string, limit: number, ttlMs: number): Promise<string | null> {
    const id = `${this.nodeId}:${++this.seq}`;
    const reply = await this.client.voxsmithLease(this.leaseKey(key), limit, ttlMs, id);
    if (reply !== 0 && reply !== 1) throw new Error('unexpected reply from the lease script');
    return reply === 1 ? id : null;
  }

  async renewLease(key: string, id: string, ttlMs: number): Promise<void> {
    await this.client.voxsmithRenew(this.leaseKey(key), ttlMs, id);
  }

  async releaseLease(key: string, id: string): Promise<void> {
    await this.client.zrem(this.leaseKey(key), id);
  }

  private leaseKey(key: string): string {
    return `${this.target.prefix}lease:${key}`;
  }

  async publish(event: SharedEvent): Promise<void> {
    await this.client.publish(this.channel, JSON.stringify({ origin: this.nodeId, event }));
  }

  async ping(): Promise<void> {
    await this.client.ping();
  }

  /** Drops both connections and dials again (a connection that stopped answering may be a zombie). */
  reconnect(): void {
    this.client.disconnect(true);
    this.subscriber.disconnect(true);
  }

  close(): void {
    this.client.disconnect();
    this.subscriber.disconnect();
  }

  private receive(channel: string, text: string): void {
    if (channel !== this.channel) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof parsed !== 'object' || parsed === null) return;
    const { origin, event } = parsed as { origin?: unknown; event?: unknown };
    // This node delivered its own events already, at publish time.
    if (origin === this.nodeId || !isSharedEvent(event)) return;
    this.handlers.message(event);
  }
}
