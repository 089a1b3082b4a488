import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import type { EncodeFormat } from '../../audio/encoders/index.ts';
import {
  DEEPGRAM_DEFAULT_MODEL,
  DEEPGRAM_QUERY_NAMES,
  DEEPGRAM_SOCKET_ENCODINGS,
  DeepgramHttpBody,
  DeepgramHttpQuery,
  DeepgramSocketQuery,
  DeepgramSpeak,
  type DeepgramSocketEncoding,
} from '../../schemas/deepgram.ts';
import { SAMPLE_RATES } from '../../schemas/speech.ts';
import type { SpeechInput } from '../../speech/speech-service.ts';
import { hangUpSignal, sendAudio, speechCaller } from '../speech-reply.ts';
import type { StreamLimits } from '../stream/connection.ts';
import { DeepgramConnection, type DeepgramSession } from '../stream/deepgram/connection.ts';
import { deepgramVoice } from '../stream/deepgram/voices.ts';
import { authenticateVendor, vendorSockets } from '../stream/vendor-auth.ts';
import { vendorLimits } from '../stream/vendor-socket.ts';

const HOW = 'Authorization: Token <key> (or Bearer), or the subprotocols "token" and the key';

/** The key as Deepgram's clients send theirs: `Authorization: Token` (or Bearer), or browsers' subprotocols `token, <key>`. */
function presentedKey(request: FastifyRequest): string | null {
  const { authorization } = request.headers;
  if (authorization !== undefined) return /^(?:Token|Bearer)\s+(\S+)\s*$/i.exec(authorization)?.[1] ?? '';
  const protocols = (request.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  const at = protocols.indexOf('token');
  if (at >= 0 && protocols[at + 1]) return protocols[at + 1];
  const { token } = request.query as Record<string, unknown>;
  return typeof token === 'string' ? token : null;
}

/**
 * A `POST /v1/speak` is Deepgram's when it is shaped as theirs: their query parameters (ours takes none) or their
 * `Authorization: Token` scheme. Anything else is ours, unchanged.
 */
function isDeepgramRequest(req: IncomingMessage): boolean {
  if (/^Token\s/i.test(req.headers.authorization ?? '')) return true;
  const query = req.url?.split('?')[1];
  if (!query) return false;
  const names = new URLSearchParams(query);
  return DEEPGRAM_QUERY_NAMES.some((n) => names.has(n));
}

const DIALECT = 'speechDialect';

/** A query number (the schema has checked its digits). */
const numberOf = (value: string | undefined): number | undefined => (value === undefined ? undefined : Number(value));

function rateOf(value: string | undefined): number | undefined {
  const rate = numberOf(value);
  if (rate !== undefined && !(SAMPLE_RATES as readonly number[]).includes(rate)) {
    throw new AppError('validation', `sample_rate must be one of: ${SAMPLE_RATES.join(', ')}`);
  }
  return rate;
}

/** What a Deepgram HTTP request's encoding and container mean in our formats. */
function httpOutput(query: DeepgramHttpQuery): Pick<SpeechInput, 'format' | 'sampleRate' | 'codec' | 'headerless'> {
  const { encoding = 'mp3', container } = query;
  const rate = rateOf(query.sample_rate);
  const bitRate = numberOf(query.bit_rate);
  const bitrate = bitRate !== undefined ? Math.round(bitRate / 1000) : undefined;
  switch (encoding) {
    case 'aac':
      throw new AppError('validation', 'encoding aac is not offered; use mp3, opus, flac, linear16, mulaw or alaw');
    case 'linear16':
      return { format: container === 'none' ? 'pcm' : 'wav', ...(rate !== undefined ? { sampleRate: rate } : {}) };
    case 'mulaw':
    case 'alaw':
      return { format: encoding, codec: { sampleRate: rate ?? 8000 }, ...(container === 'none' ? { headerless: true } : {}) };
    case 'mp3':
      // Deepgram's MP3 is 22 050 Hz.
      return { format: 'mp3', codec: { sampleRate: rate ?? 22_050, ...(bitrate !== undefined ? { bitrate } : {}) } };
    case 'opus':
      return { format: 'opus', codec: bitrate !== undefined ? { bitrate } : {} };
    case 'flac':
      return { format: 'flac' };
  }
}

/**
 * Deepgram's text-to-speech: the `/v1/speak` WebSocket (a GET with Upgrade; our `POST /v1/speak` is unchanged) and
 * their plain HTTP request, told from ours by its shape, so their SDK and LiveKit's and Pipecat's Deepgram plugins
 * speak through Voxsmith with the base URL and key changed.
 */
export async function deepgramSpeakRoutes(app: FastifyInstance, options: { limits?: Partial<StreamLimits> }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const track = vendorSockets(app, 'Deepgram sockets');
  const limits = vendorLimits(options.limits);
  const sessions = new WeakMap<FastifyRequest, DeepgramSession>();
  if (!app.hasConstraintStrategy(DIALECT)) {
    app.addConstraintStrategy({
      name: DIALECT,
      storage: () => {
        const handlers = new Map<string, unknown>();
        return {
          get: (value: string) => (handlers.get(value) ?? null) as never,
          set: (value: string, handler: unknown) => void handlers.set(value, handler),
        };
      },
      deriveConstraint: (req: IncomingMessage) => (isDeepgramRequest(req) ? 'deepgram' : undefined) as unknown as string,
      mustMatchWhenDerived: false,
    });
  }

  /** The socket's key, voice and output, checked before the upgrade: an unknown model is a 404, not a dead socket. */
  const openSocket = async (request: FastifyRequest, reply: FastifyReply) => {
    await authenticateVendor(app, request, reply, presentedKey(request), HOW);
    const query = request.query as DeepgramSocketQuery;
    const rate = rateOf(query.sample_rate);
    const speed = numberOf(query.speed);
    const encoding = DEEPGRAM_SOCKET_ENCODINGS[(query.encoding ?? 'linear16') as DeepgramSocketEncoding];
    const voiceId = deepgramVoice(app.services.speech, query.model);
    const format: EncodeFormat = encoding.format;
    await app.services.speech.prepareJob(speechCaller(request.principal), { voiceId, speed, format });
    sessions.set(request, {
      model: query.model ?? DEEPGRAM_DEFAULT_MODEL,
      settings: {
        voice: { voiceId, ...(speed !== undefined ? { speed } : {}) },
        format,
        output: { codec: { sampleRate: rate ?? encoding.sampleRate }, headerless: true },
      },
    });
  };

  app.route({
    method: 'GET',
    url: '/v1/speak',
    config: { ownAuthorization: true },
    preHandler: openSocket,
    schema: { ...SOCKET_DOC, querystring: DeepgramSocketQuery },
    wsHandler: (socket, request) => {
      const principal = request.principal;
      const session = sessions.get(request);
      if (!principal || !session) return socket.close(1008, 'unauthenticated');
      const connection = new DeepgramConnection(app, socket, principal, request.ip, request.log, limits, session);
      const remove = track(principal, (code, reason) => connection.close(code, reason), request.log);
      socket.on('close', remove);
    },
    // A GET without Upgrade is neither Deepgram's socket nor our speech (a POST).
    handler: async (_request, reply) => {
      reply.header('Allow', 'POST');
      throw new AppError('method_not_allowed', 'GET /v1/speak is Deepgram’s WebSocket: connect with an Upgrade, or POST to speak');
    },
  });

  r.post(
    '/v1/speak',
    {
      constraints: { [DIALECT]: 'deepgram' },
      config: { ownAuthorization: true },
      preHandler: (request, reply) => authenticateVendor(app, request, reply, presentedKey(request), HOW),
      // Documented in docs/api.md: OpenAPI has one operation per path and method, and that one is ours.
      schema: { hide: true, querystring: DeepgramHttpQuery, body: DeepgramHttpBody },
    },
    async (request, reply) => {
      const { query, body } = request;
      const signal = hangUpSignal(reply);
      const voiceId = deepgramVoice(app.services.speech, query.model);
      const speech = await app.services.speech.speak(
        speechCaller(request.principal),
        { text: body.text, voiceId, speed: numberOf(query.speed), door: 'deepgram', download: true, ...httpOutput(query) },
        signal,
      );
      reply
        .header('dg-model-name', query.model ?? DEEPGRAM_DEFAULT_MODEL)
        .header('dg-char-count', String(speech.characters))
        .header('dg-request-id', request.id);
      return sendAudio(request, reply, signal, speech);
    },
  );
}

const SOCKET_DOC: FastifySchema & Record<`x-${string}`, unknown> = {
  summary: 'Deepgram Speak WebSocket',
  description:
    'Deepgram’s `/v1/speak` WebSocket (a GET with Upgrade; `POST /v1/speak` stays ours, see docs/api.md, "Voice-agent sockets"). ' +
    'Authenticate with `Authorization: Token <key>` (or Bearer) or the subprotocols `token` + the key. Query: `model` (an Aura model or a ' +
    'Voxsmith voice id), `encoding` (linear16, mulaw, alaw), `sample_rate`, `speed`. Send `{"type": "Speak", "text"}`, `{"type": "Flush"}`, ' +
    '`{"type": "Clear"}`, `{"type": "Close"}`; receive binary audio frames, `Metadata`, `Flushed`, `Cleared` and `Warning` messages.',
  tags: ['Streaming'],
  security: [{ apiKey: [] }],
  response: { 101: { description: 'Switching Protocols: the socket is open', type: 'null' } },
  'x-websocket-messages': { client: { speak: DeepgramSpeak } },
};
