import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';
import type { KeyScope } from '../../schemas/api-keys.ts';
import { enforce } from './rate-limit.ts';
import { csrfMessage, originAllowed } from '../origin-policy.ts';
import { scopesOf, type Principal } from '../types.ts';

export const SESSION_COOKIE = 'vox_session';

/**
 * Under an https PUBLIC_URL the cookie is `__Host-vox_session`: browsers then accept it only Secure, for
 * path / and without a Domain, so no sibling subdomain can plant or overwrite a session.
 */
export function sessionCookieName(secure: boolean): string {
  return secure ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE;
}
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Resolves the caller from whatever credential the request carries. A Bearer header that does not name a
 * live key is refused outright (the same 401 whether malformed, unknown or revoked); a stale session
 * cookie just means "not signed in".
 */
export async function resolvePrincipal(app: FastifyInstance, request: FastifyRequest, bearer: string | null): Promise<Principal | null> {
  if (bearer !== null) {
    const key = await app.services.apiKeys.authenticate(bearer);
    if (!key) return failedAuthentication(app, request, new AppError('unauthorized', 'Invalid API key'));
    return { via: 'key', userId: key.userId, keyId: key.keyId, scopes: key.scopes };
  }
  const sessionId = request.cookies[sessionCookieName(app.config.secureCookies)];
  if (!sessionId) return null;
  const session = await app.services.sessions.resolve(sessionId);
  if (!session) {
    await countAuthFailure(app, request);
    return null;
  }
  return { via: 'session', userId: session.userId, sessionIdHash: session.idHash };
}

/**
 * Every credential that names nothing (bad key, unknown or revoked key, stale session) counts against the
 * caller's address in the shared sliding window, so guessing is throttled on every node alike; over the
 * limit the answer is 429 with Retry-After instead of 401.
 */
async function countAuthFailure(app: FastifyInstance, request: FastifyRequest): Promise<void> {
  await enforce(app, null, `authfail:ip:${request.ip}`, app.config.authFailureLimitPerMinute, 60_000, 'auth-failure');
}

async function failedAuthentication(app: FastifyInstance, request: FastifyRequest, error: AppError): Promise<never> {
  await countAuthFailure(app, request);
  throw error;
}

/** The Bearer credential, counted as a failed authentication when the header is malformed. */
export async function presentedBearer(app: FastifyInstance, request: FastifyRequest): Promise<string | null> {
  try {
    return bearerToken(request);
  } catch (error) {
    return failedAuthentication(app, request, error as AppError);
  }
}

/** ElevenLabs' key header, so their SDKs and the tools built on them send our key where they send theirs. */
export const XI_API_KEY_HEADER = 'xi-api-key';

function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (header === undefined) return xiApiKey(request);
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new AppError('unauthorized', 'Authorization header must be "Bearer <API key>"');
  return match[1];
}

/**
 * The key in `xi-api-key`, read when there is no Authorization header; it then goes through the same check (and
 * failure count) as a Bearer key. A repeated or empty header is malformed.
 */
function xiApiKey(request: FastifyRequest): string | null {
  const value = request.headers[XI_API_KEY_HEADER];
  if (value === undefined) return null;
  const key = typeof value === 'string' ? value.trim() : '';
  if (key === '' || /\s/.test(key)) throw new AppError('unauthorized', `${XI_API_KEY_HEADER} header must hold one API key`);
  return key;
}

/** Cookie-authenticated writes must come from our own origin; Bearer requests cannot be forged by a page. */
export function checkOrigin(app: FastifyInstance, request: FastifyRequest): void {
  if (SAFE_METHODS.has(request.method)) return;
  requireOwnOrigin(app, request);
}

/** The origin rule (origin-policy.ts) for any method: a WebSocket upgrade is a GET that opens a channel that writes. */
export function requireOwnOrigin(app: FastifyInstance, request: FastifyRequest): void {
  const { origin } = request.headers;
  if (!originAllowed(app.config, origin, request.host)) throw new AppError('csrf', csrfMessage(app.config, origin));
}

/** preHandler for routes only a signed-in caller (a key or a session) may use; a session must come from our own origin. */
export async function requireAuth(this: FastifyInstance, request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  if (!request.principal) throw new AppError('unauthorized');
  if (request.principal.via === 'session') checkOrigin(this, request);
}

/** Refuses a caller whose key lacks `scope` (403 insufficient_scope); a session holds every scope. */
export function checkScope(principal: Principal, scope: KeyScope): void {
  if (!scopesOf(principal).includes(scope)) {
    throw new AppError(
      'insufficient_scope',
      `This API key lacks the "${scope}" scope this operation needs (it has: ${scopesOf(principal).join(', ')})`,
    );
  }
}

type Guard = (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) => Promise<void>;
const scopeGuards = new Map<KeyScope, Guard>();
const guardScopes = new Map<Guard, KeyScope>();

/**
 * preHandler for routes that need a caller (as requireAuth) holding `scope`. One function per scope, so the
 * OpenAPI document can tell which scope a route needs (scopeGuarded).
 */
export function requireScope(scope: KeyScope): Guard {
  let guard = scopeGuards.get(scope);
  if (!guard) {
    guard = async function scopeGuard(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply): Promise<void> {
      await requireAuth.call(this, request, reply);
      checkScope(request.principal as Principal, scope);
    };
    scopeGuards.set(scope, guard);
    guardScopes.set(guard, scope);
  }
  return guard;
}

/** The scope a route hook demands, if it is a scope guard. */
export function scopeGuarded(hook: unknown): KeyScope | undefined {
  return guardScopes.get(hook as Guard);
}

async function auth(app: FastifyInstance): Promise<void> {
  app.decorateRequest('principal', null);
  // Who is signed in, keys, sign-in answers: never for a shared or browser cache (errors included).
  app.addHook('onSend', async (request, reply) => {
    if (request.url.startsWith('/api/auth/')) reply.header('Cache-Control', 'no-store');
  });
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.ownAuthorization) return;
    request.principal = await resolvePrincipal(app, request, await presentedBearer(app, request));
  });
}

export const authPlugin = fp(auth, { name: 'voxsmith-auth', dependencies: ['@fastify/cookie'] });
