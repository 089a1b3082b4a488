import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { AppError } from '../../errors.ts';
import { enforceApiLimit } from '../plugins/rate-limit.ts';
import { checkScope, requireOwnOrigin, resolvePrincipal } from '../plugins/auth.ts';
import { DEFAULT_STREAM_LIMITS, StreamConnection, type StreamLimits } from '../stream/connection.ts';
import { OpenStreams } from '../stream/open-streams.ts';
import { STREAM_SAMPLE_RATE } from '../../schemas/speech.ts';
import { ClientMessage, MAX_FRAME_BYTES, ServerMessage, STREAM_SUBPROTOCOL } from '../../schemas/stream.ts';

/** A key offered as a WebSocket subprotocol (`new WebSocket(url, ['voxsmith.v1', key])`). */
function keyFromProtocols(header: string | undefined): string | null {
  if (!header) return null;
  return (
    header
      .split(',')
      .map((p) => p.trim())
      .find((p) => p.startsWith('service_sk_')) ?? null
  );
}

/**
 * GET /v1/ws/stream. Authentication happens before the upgrade (a refusal is a plain HTTP 401 with a
 * JSON body): the `token` query parameter, a key offered as a subprotocol, or a session cookie from our
 * own origin (browsers cannot set headers on a WebSocket, and cross-site pages must not ride the cookie).
 */
export async function streamRoutes(app: FastifyInstance, options: { limits?: Partial<StreamLimits> }): Promise<void> {
  const open = new OpenStreams();
  app.services.metrics.watchStreams(() => open.size);
  const unsubscribe = app.services.sharedState.subscribe((event) => open.onEvent(event));
  app.services.shutdown.add('doors', 'WebSocket streams', () => {
    unsubscribe();
    open.closeAll(1001, 'server shutting down');
  });

  const authenticate = async (request: FastifyRequest, reply: FastifyReply) => {
    const query = request.query as Record<string, unknown>;
    const presented = (typeof query.token === 'string' ? query.token : null) ?? keyFromProtocols(request.headers['sec-websocket-protocol']);
    if (presented !== null && request.principal === null) request.principal = await resolvePrincipal(app, request, presented);
    if (!request.principal) throw new AppError('unauthorized', 'Pass an API key as ?token=<key>, as a subprotocol, or sign in');
    if (request.principal.via === 'session') {
      // A WebSocket upgrade is a GET, but it opens a channel that writes: apply the origin rule anyway.
      requireOwnOrigin(app, request);
    }
    checkScope(request.principal, 'speech');
    await enforceApiLimit(app, reply, request.principal, request.ip);
  };

  app.get('/v1/ws/stream', { websocket: true, preHandler: authenticate, schema: STREAM_DOC }, (socket, request) => {
    const principal = request.principal;
    if (!principal) return socket.close(1008, 'unauthenticated');
    const connection = new StreamConnection(app, socket, principal, request.ip, request.log, {
      ...DEFAULT_STREAM_LIMITS,
      ...options.limits,
    });
    const remove = open.add({
      keyId: principal.via === 'key' ? principal.keyId : null,
      sessionIdHash: principal.via === 'session' ? principal.sessionIdHash : null,
      close: (code, reason) => connection.close(code, reason),
      // The database is the truth when the broadcast may have dropped a revocation (Redis was away).
      recheck: () => {
        const stillValid =
          principal.via === 'key'
            ? app.services.apiKeys.isActive(principal.keyId)
            : app.services.sessions.isActive(principal.sessionIdHash);
        stillValid.then(
          (ok) => ok || connection.close(1008, principal.via === 'key' ? 'API key revoked' : 'session ended'),
          (err: unknown) => request.log.warn({ err }, 'could not re-check a stream credential'),
        );
      },
    });
    socket.on('close', remove);
  });
}

/** Documentation only: what the upgrade and its messages look like (OpenAPI cannot describe frames). */
const STREAM_DOC: FastifySchema & Record<`x-${string}`, unknown> = {
  summary: 'Stream speech (WebSocket)',
  description:
    `Upgrade to a WebSocket. Authenticate with \`?token=<API key>\`, the subprotocols \`${STREAM_SUBPROTOCOL}\` + the key, or the session cookie ` +
    '(same Origin). Send JSON text frames `{"type":"synthesize","text":"…","voice_id":"…","engine":"…","speed":1,"id":"…"}` or ' +
    `\`{"type":"cancel","id":"…"}\`. Receive \`{"type":"audio","audio":"<base64 float32 LE PCM, ${STREAM_SAMPLE_RATE} Hz mono>","id","words"}\` chunks, ` +
    'then `{"type":"done","samples","seconds","id"}`; failures are `{"type":"error","error","code","id"}` and the connection stays open. ' +
    'Input streaming (text written token by token): `{"type":"synthesize","context_id":"c1","text":"Hel","continue":true}` pieces accumulate per ' +
    'context, each sentence is spoken once complete, `{"type":"flush","context_id":"c1"}` speaks the rest (then `done` for the context), ' +
    '`continue: false` ends the context, `{"type":"cancel","context_id":"c1"}` drops it (answered by `done` with `cancelled: true`; no audio of it follows). ' +
    'Audio, done and error messages of a context carry its `context_id`. One synthesis runs at a time per connection: requests and complete ' +
    'sentences are spoken in the order they became ready, so contexts alternate between sentences, never inside one. ' +
    'A refused upgrade is a plain HTTP error with the JSON error body.',
  tags: ['Streaming'],
  security: [{ streamToken: [] }, { session: [] }],
  querystring: {
    type: 'object',
    properties: { token: { type: 'string', description: 'Your API key (or use the subprotocol)' } },
  },
  // type null: a response without a body (and without a serializer worth compiling).
  response: { 101: { description: 'Switching Protocols: the stream is open', type: 'null' } },
  // The frames themselves, from the schemas the connection parses with (an extension: OpenAPI has no frames).
  'x-websocket-messages': { client: ClientMessage, server: ServerMessage },
};

/**
 * ws server options: frame limit and the subprotocol answer (never echo a key back): ours, or `token` for
 * Deepgram's browser clients, which offer their key as `token, <key>`.
 */
export const websocketServerOptions = {
  maxPayload: MAX_FRAME_BYTES,
  handleProtocols: (protocols: Set<string>) =>
    protocols.has(STREAM_SUBPROTOCOL) ? STREAM_SUBPROTOCOL : protocols.has('token') ? 'token' : false,
};
