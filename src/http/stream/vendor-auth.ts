// What the vendors' sockets share around the connection itself: the key check before the upgrade (a refusal is a
// plain HTTP error with our JSON body, as on /v1/ws/stream), and the register of open sockets that a key revoked
// anywhere, or the server shutting down, closes.
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';
import { checkScope, resolvePrincipal } from '../plugins/auth.ts';
import { enforceApiLimit } from '../plugins/rate-limit.ts';
import type { Principal } from '../types.ts';
import { OpenStreams } from './open-streams.ts';

/**
 * Resolves the key a vendor's client presented (null: none) and applies what every speech door applies: a live
 * key (failures counted per address), the `speech` scope, the per-key rate limit.
 */
export async function authenticateVendor(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  presented: string | null,
  how: string,
): Promise<void> {
  if (presented === null || presented === '') throw new AppError('unauthorized', `Pass an API key: ${how}`);
  const principal = await resolvePrincipal(app, request, presented);
  if (!principal) throw new AppError('unauthorized', `Pass an API key: ${how}`);
  request.principal = principal;
  checkScope(principal, 'speech');
  await enforceApiLimit(app, reply, principal, request.ip);
}

/** Open sockets of one door, closed when their key is revoked (on any node) or the server shuts down. */
export function vendorSockets(
  app: FastifyInstance,
  label: string,
): (principal: Principal, close: (code: number, reason: string) => void, log: FastifyBaseLogger) => () => void {
  const open = new OpenStreams();
  app.services.metrics.watchStreams(() => open.size);
  const unsubscribe = app.services.sharedState.subscribe((event) => open.onEvent(event));
  app.services.shutdown.add('doors', label, () => {
    unsubscribe();
    open.closeAll(1001, 'server shutting down');
  });
  return (principal, close, log) =>
    open.add({
      keyId: principal.via === 'key' ? principal.keyId : null,
      sessionIdHash: principal.via === 'session' ? principal.sessionIdHash : null,
      close,
      recheck: () => {
        if (principal.via !== 'key') return;
        app.services.apiKeys.isActive(principal.keyId).then(
          (ok) => ok || close(1008, 'API key revoked'),
          (err: unknown) => log.warn({ err }, 'could not re-check a speech socket’s key'),
        );
      },
    });
}
