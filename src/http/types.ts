import type { Config } from '../config.ts';
import type { Services } from '../services.ts';

/** Who is calling: an API key or a dashboard session. */
export type Principal =
  | { via: 'key'; userId: string; keyId: string }
  | { via: 'session'; userId: string; sessionIdHash: string };

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
