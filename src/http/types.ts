import type { Config } from '../config.ts';
import { KEY_SCOPES, type KeyScope } from '../schemas/api-keys.ts';
import type { Services } from '../services.ts';

/** Who is calling: an API key (with what it may do) or a dashboard session. */
export type Principal =
  { via: 'key'; userId: string; keyId: string; scopes: readonly KeyScope[] } | { via: 'session'; userId: string; sessionIdHash: string };

/** What the caller may do: a key its scopes, a signed-in session everything its account may. */
export function scopesOf(p: Principal): readonly KeyScope[] {
  return p.via === 'key' ? p.scopes : KEY_SCOPES;
}

/** The key a request used, or null for a dashboard session (usage is metered per key). */
export function keyIdOf(p: Principal): string | null {
  return p.via === 'key' ? p.keyId : null;
}

/** Which limit a route counts against. */
export type RateLimitClass = 'api' | 'login';

declare module 'fastify' {
  interface FastifyInstance {
    config: Readonly<Config>;
    services: Services;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    rateLimit?: RateLimitClass;
    /** The route reads its own Authorization header (/metrics and its METRICS_TOKEN), so the auth hook skips it. */
    ownAuthorization?: boolean;
  }
}
