import type { StoreLogger } from '../logger.ts';
import { MemorySharedState } from './memory.ts';
import type { SharedState } from './shared-state.ts';

export interface SharedStateOptions {
  /** Key prefix; wins over `?prefix=` in REDIS_URL (tests isolate themselves with one each). */
  redisPrefix?: string;
  log?: StoreLogger;
}

/**
 * In-memory for a single node; Redis (with a local fallback) when REDIS_URL is set. The Redis client is
 * loaded only then: a single node does not pay its start-up time and memory (~0.1 s, ~10 MiB).
 */
export async function openSharedState(redisUrl: string | null, options: SharedStateOptions = {}): Promise<SharedState> {
  if (!redisUrl) return new MemorySharedState();
  const [{ parseRedisUrl }, { RedisSharedState }] = await Promise.all([import('./redis-link.ts'), import('./redis.ts')]);
  return RedisSharedState.open(parseRedisUrl(redisUrl, options.redisPrefix), options.log);
}
