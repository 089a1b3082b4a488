import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Principal } from '../types.ts';
import { AppError } from '../../errors.ts';
import type { RateDecision } from '../../store/shared-state/shared-state.ts';

const MINUTE = 60_000;

/** RateLimit-Policy / RateLimit headers of the IETF httpapi draft, in whole seconds. */
export function setRateHeaders(reply: FastifyReply, decision: RateDecision, windowMs: number, policy: string): void {
  reply.header('RateLimit-Policy', `"${policy}";q=${decision.limit};w=${Math.round(windowMs / 1000)}`);
  reply.header('RateLimit', `"${policy}";r=${decision.remaining};t=${Math.max(0, Math.ceil(decision.resetMs / 1000))}`);
}

export function rateLimitError(decision: RateDecision): AppError {
  // Never 0 and never fractional: a client sleeping Retry-After seconds must then get through.
  const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  return new AppError('rate_limited', `Rate limit exceeded: ${decision.limit} requests per window; retry in ${seconds} s`, {
    'Retry-After': String(seconds),
  });
}

/**
 * Counts a hit and throws the 429 when over; used by the hook and by handlers with their own keys.
 * `reply` is null where there are no headers to set (messages on an open WebSocket).
 */
export async function enforce(
  app: FastifyInstance,
  reply: FastifyReply | null,
  key: string,
  limit: number,
  windowMs: number,
  policy: string,
): Promise<void> {
  const decision = await app.services.sharedState.hit(key, limit, windowMs);
  if (reply) setRateHeaders(reply, decision, windowMs, policy);
  if (!decision.allowed) {
    app.services.metrics.rateLimited(policy);
    throw rateLimitError(decision);
  }
}

/** The bucket /v1/* requests count against: the key, else the session's user, else the client address. */
export function apiRateKey(p: Principal | null, ip: string): string {
  if (!p) return `api:ip:${ip}`;
  return p.via === 'key' ? `api:key:${p.keyId}` : `api:user:${p.userId}`;
}

/** The /v1/* limit, shared by HTTP requests, stream upgrades and each request on a stream. */
export function enforceApiLimit(app: FastifyInstance, reply: FastifyReply | null, principal: Principal | null, ip: string): Promise<void> {
  return enforce(app, reply, apiRateKey(principal, ip), app.config.rateLimitPerMinute, MINUTE, 'api');
}

/** Routes opt in with `config: { rateLimit: 'api' | 'login' }`; runs after the auth hook. */
async function rateLimit(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', async (request, reply) => {
    const kind = request.routeOptions.config.rateLimit;
    if (kind === 'api') {
      await enforceApiLimit(app, reply, request.principal, request.ip);
    } else if (kind === 'login') {
      await enforce(app, reply, `login:ip:${request.ip}`, app.config.loginRateLimitPerMinute, MINUTE, 'login');
    }
  });
}

export const rateLimitPlugin = fp(rateLimit, { name: 'voxsmith-rate-limit', dependencies: ['voxsmith-auth'] });
