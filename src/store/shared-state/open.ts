import type { StoreLogger } from '../logger.ts';
import { MemorySharedState } from './memory.ts';
import { parseRedisUrl } from './redis-link.ts';
import { RedisSharedState } from './redis.ts';
import type { SharedState } from './shared-state.ts';

export interface SharedStateOptions {
  /** Key prefix; wins over `?prefix=` in REDIS_URL (tests isolate themselves with one each). */
  redisPrefix?: string;
  log?: StoreLogger;
}

/** In-memory for a single node; Redis (with a local fallback) when REDIS_URL is set. */
export async function openSharedState(redisUrl: string | null, options: SharedStateOptions = {}): Promise<SharedState> {
  if (!redisUrl) return new MemorySharedState();
  return RedisSharedState.open(parseRedisUrl(redisUrl, options.redisPrefix), options.log);
}
