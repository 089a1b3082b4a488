import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';
import { apiRateKey, enforce } from '../plugins/rate-limit.ts';
import { DEFAULT_STREAM_LIMITS, StreamConnection, type StreamLimits } from '../stream/connection.ts';
import { OpenStreams } from '../stream/open-streams.ts';

/** The subprotocol a browser names beside its key when it authenticates through Sec-WebSocket-Protocol. */
export const STREAM_SUBPROTOCOL = 'voxsmith.v1';
export const MAX_FRAME_BYTES = 64 * 1024;

/** A key offered as a WebSocket subprotocol (`new WebSocket(url, ['voxsmith.v1', key])`). */
function keyFromProtocols(header: string | undefined): string | null {
  if (!header) return null;
  return header.split(',').map((p) => p.trim()).find((p) => p.startsWith('service_sk_')) ?? null;
}

declare module 'fastify' {
  interface FastifyInstance {
    openStreams: OpenStreams;
  }
}

/**
 * GET /v1/ws/stream. Authentication happens before the upgrade (a refusal is a plain HTTP 401 with a
 * JSON body): the `token` query parameter, a key offered as a subprotocol, or a session cookie from our
 * own origin (browsers cannot set headers on a WebSocket, and cross-site pages must not ride the cookie).
 */
export async function streamRoutes(app: FastifyInstance, options: { limits?: Partial<StreamLimits> }): Promise<void> {
  const open = new OpenStreams();
  app.decorate('openStreams', open);
  const unsubscribe = app.services.sharedState.subscribe((event) => open.onEvent(event));
  app.addHook('preClose', async () => {
    unsubscribe();
    open.closeAll(1001, 'server shutting down');
  });

  const authenticate = async (request: FastifyRequest, reply: FastifyReply) => {
    const query = request.query as Record<string, unknown>;
    const presented = (typeof query.token === 'string' ? query.token : null) ?? keyFromProtocols(request.headers['sec-websocket-protocol']);
    if (presented !== null && request.principal === null) {
      const key = await app.services.apiKeys.authenticate(presented);
      if (!key) throw new AppError('unauthorized', 'Invalid API key');
      request.principal = { via: 'key', userId: key.userId, keyId: key.keyId };
    }
    if (!request.principal) throw new AppError('unauthorized', 'Pass an API key as ?token=<key>, as a subprotocol, or sign in');
    if (request.principal.via === 'session') {
      // A WebSocket upgrade is a GET, but it opens a channel that writes: apply the origin rule anyway.
      if (request.headers.origin !== app.config.publicOrigin) throw new AppError('csrf');
    }
    await enforce(app, reply, apiRateKey(request.principal, request.ip), app.config.rateLimitPerMinute, 60_000, 'api');
  };

  app.get('/v1/ws/stream', { websocket: true, preHandler: authenticate }, (socket, request) => {
    const principal = request.principal;
    if (!principal) return socket.close(1008, 'unauthenticated');
    const connection = new StreamConnection(app, socket, principal, request.ip, request.log, { ...DEFAULT_STREAM_LIMITS, ...options.limits });
    const remove = open.add({
      keyId: principal.via === 'key' ? principal.keyId : null,
      sessionIdHash: principal.via === 'session' ? principal.sessionIdHash : null,
      close: (code, reason) => connection.close(code, reason),
    });
    socket.on('close', remove);
  });
}

/** ws server options: frame limit and the subprotocol answer (never echo a key back). */
export const websocketServerOptions = {
  maxPayload: MAX_FRAME_BYTES,
  handleProtocols: (protocols: Set<string>) => (protocols.has(STREAM_SUBPROTOCOL) ? STREAM_SUBPROTOCOL : false),
};
