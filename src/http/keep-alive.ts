import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

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

/** A socket as Node's HTTP server holds it: the response being written and the parser's request. */
type ServerSocket = Socket & {
  _httpMessage?: ServerResponse | null;
  parser?: { incoming?: IncomingMessage | null } | null;
};

/**
 * Node closes an idle keep-alive connection from a timer, and an event loop turn runs its timers before it reads
 * the sockets. When the process got no core for a while (busy loops beside it), the timer and a request that came
 * in just before it are due in the same turn, and the timer wins: the connection closes with the request unread,
 * the client reads "other side closed" and the server never knew (issue 44, C1). With a listener on the server's
 * 'timeout' Node leaves the close to us: it waits for this turn's reads (setImmediate runs after them), and a
 * connection that received bytes meanwhile is served (the read re-armed its timer; the header and request bounds
 * still apply to what came).
 */
export function readBeforeIdleClose(server: Server, log: FastifyBaseLogger): void {
  server.on('timeout', (socket: Socket) => {
    const s = socket as ServerSocket;
    const request = s.parser?.incoming;
    const response = s._httpMessage;
    if ((request && !request.complete) || response) {
      // Not idle: what Node itself does, unless the request or the response watches its own timeout.
      const handled =
        (request && !request.complete && request.listenerCount('timeout') > 0) || (response && response.listenerCount('timeout') > 0);
      if (!handled) {
        log.warn(
          { remoteAddress: socket.remoteAddress, answered: response?.headersSent ?? false },
          'connection closed on an unfinished request: socket timeout',
        );
        socket.destroy();
      }
      return;
    }
    const read = socket.bytesRead;
    setImmediate(() => {
      if (!socket.destroyed && socket.bytesRead === read) socket.destroy();
    });
  });
}
