import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

/**
 * How long an idle keep-alive connection is really held, for a `Keep-Alive: timeout=` the responses advertise.
 *
 * A client reuses an idle connection until the timeout the server advertised runs out by its own clock. When the
 * server closes it at that very moment, a request the client sends near the end (its timer late under CPU load, or
 * its event loop busy) meets a closed socket: the client reads "other side closed" and the server never sees the
 * request, so it can neither answer nor log it (issue 44, C1: the ElevenLabs SDK's first call after sign-in, with
 * busy loops beside the server). Holding the connection well past the advertised time closes that window, as
 * Node 24's keepAliveTimeoutBuffer does; the extra time costs only an idle socket.
 */
export function keepAliveHeldMs(advertisedMs: number): number {
  return advertisedMs + Math.max(5_000, advertisedMs);
}

/** Node writes `Keep-Alive: timeout=` from this field of each response, set from the server's own timeout. */
type AdvertisingResponse = ServerResponse & { _keepAliveTimeout?: number };

/** Every response advertises `advertisedMs` while the server (keepAliveHeldMs) holds idle connections longer. */
export function advertiseKeepAlive(app: FastifyInstance, advertisedMs: number): void {
  app.addHook('onRequest', (_request, reply, done) => {
    (reply.raw as AdvertisingResponse)._keepAliveTimeout = advertisedMs;
    done();
  });
}
