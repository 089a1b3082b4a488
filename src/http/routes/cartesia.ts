import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { AppError } from '../../errors.ts';
import { CartesiaCancel, CartesiaGeneration, MAX_CARTESIA_VERSION_CHARS } from '../../schemas/cartesia.ts';
import { CartesiaConnection } from '../stream/cartesia/connection.ts';
import { authenticateVendor, vendorSockets } from '../stream/vendor-auth.ts';
import type { StreamLimits } from '../stream/connection.ts';
import { vendorLimits } from '../stream/vendor-socket.ts';

const HOW = 'the X-API-Key header, Authorization: Bearer <key>, or ?api_key=<key>';

/** The key as Cartesia's clients send theirs: X-API-Key (LiveKit, their older SDK), Bearer (their newer SDK), or the query (browsers). */
function presentedKey(request: FastifyRequest): string | null {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string') return header.trim();
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (bearer) return bearer[1];
  const query = request.query as Record<string, unknown>;
  for (const name of ['api_key', 'access_token']) if (typeof query[name] === 'string') return query[name];
  return null;
}

/**
 * GET /tts/websocket: Cartesia's TTS WebSocket, so their SDKs and LiveKit's and Pipecat's Cartesia plugins speak
 * through Voxsmith with the base URL and key changed.
 */
export async function cartesiaRoutes(app: FastifyInstance, options: { limits?: Partial<StreamLimits> }): Promise<void> {
  const track = vendorSockets(app, 'Cartesia sockets');
  const limits = vendorLimits(options.limits);

  const authenticate = async (request: FastifyRequest, reply: FastifyReply) => {
    const query = request.query as Record<string, unknown>;
    const version = request.headers['cartesia-version'] ?? query.cartesia_version;
    if (version !== undefined && (typeof version !== 'string' || version.length > MAX_CARTESIA_VERSION_CHARS)) {
      throw new AppError('validation', `Cartesia-Version must be one version string of at most ${MAX_CARTESIA_VERSION_CHARS} characters`);
    }
    await authenticateVendor(app, request, reply, presentedKey(request), HOW);
  };

  app.route({
    method: 'GET',
    url: '/tts/websocket',
    config: { ownAuthorization: true },
    preHandler: authenticate,
    schema: DOC,
    wsHandler: (socket, request) => {
      const principal = request.principal;
      if (!principal) return socket.close(1008, 'unauthenticated');
      const connection = new CartesiaConnection(app, socket, principal, request.ip, request.log, limits);
      const remove = track(principal, (code, reason) => connection.close(code, reason), request.log);
      socket.on('close', remove);
    },
    handler: async () => {
      throw new AppError('bad_request', '/tts/websocket is a WebSocket: connect with an Upgrade');
    },
  });
}

const DOC: FastifySchema & Record<`x-${string}`, unknown> = {
  summary: 'Cartesia TTS WebSocket',
  description:
    'Cartesia’s `/tts/websocket` protocol (see docs/api.md, "Voice-agent sockets"). Authenticate with `X-API-Key`, `Authorization: Bearer`, ' +
    'or `?api_key=`; `Cartesia-Version` is accepted. Send generation requests by `context_id` (`transcript`, `continue`, `flush`, ' +
    '`add_timestamps`, `voice: {"mode": "id", "id": <Voxsmith voice id>}`, `output_format: {"container": "raw", "encoding", "sample_rate"}`) ' +
    'and `{"context_id", "cancel": true}`. Receive `chunk` (base64 audio), `timestamps` (word_timestamps), `flush_done`, `done` and `error` messages.',
  tags: ['Streaming'],
  security: [{ apiKey: [] }],
  response: { 101: { description: 'Switching Protocols: the socket is open', type: 'null' } },
  'x-websocket-messages': { client: { generation: CartesiaGeneration, cancel: CartesiaCancel } },
};
