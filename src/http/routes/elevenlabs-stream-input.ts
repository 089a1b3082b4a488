import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { WebSocket } from 'ws';
import { AppError } from '../../errors.ts';
import { ELEVENLABS_OUTPUTS, DEFAULT_ELEVENLABS_OUTPUT } from '../../schemas/elevenlabs.ts';
import {
  DEFAULT_INACTIVITY_SECONDS,
  ElevenLabsClientMessage,
  ElevenLabsServerMessage,
  ElevenLabsStreamQuery,
  MAX_ELEVENLABS_CONTEXTS,
  MAX_INACTIVITY_SECONDS,
} from '../../schemas/elevenlabs-stream.ts';
import { isKnownVoice } from '../../synth/registry.ts';
import { enforceApiLimit } from '../plugins/rate-limit.ts';
import { checkScope, requireOwnOrigin, resolvePrincipal } from '../plugins/auth.ts';
import { DEFAULT_STREAM_LIMITS, type StreamLimits } from '../stream/connection.ts';
import { closeSocket } from '../stream/close.ts';
import { vendorSockets } from '../stream/vendor-auth.ts';
import { ElevenLabsConnection, type ElevenLabsSocketSettings } from '../stream/elevenlabs/connection.ts';
import type { Principal } from '../types.ts';

const TAG = 'ElevenLabs compatible';

/** The key in the `authorization` query, bare or as "Bearer <key>". */
function queryKey(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const key = value.replace(/^Bearer\s+/i, '').trim();
  return key === '' ? null : key;
}

/** The socket's settings from its query, or what is wrong with them (told to the client in their error shape). */
function settingsOf(
  query: Record<string, unknown>,
  multi: boolean,
  voiceId: string,
  limits: StreamLimits,
): ElevenLabsSocketSettings | AppError {
  const name = typeof query.output_format === 'string' ? query.output_format : DEFAULT_ELEVENLABS_OUTPUT;
  const output = Object.hasOwn(ELEVENLABS_OUTPUTS, name) ? ELEVENLABS_OUTPUTS[name] : undefined;
  if (!output) {
    return new AppError(
      'validation',
      `output_format "${name.slice(0, 40)}" is not offered; use one of: ${Object.keys(ELEVENLABS_OUTPUTS).join(', ')}`,
    );
  }
  const timeout = query.inactivity_timeout === undefined ? DEFAULT_INACTIVITY_SECONDS : Number(query.inactivity_timeout);
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > MAX_INACTIVITY_SECONDS) {
    return new AppError('validation', `inactivity_timeout must be a whole number of seconds from 1 to ${MAX_INACTIVITY_SECONDS}`);
  }
  return {
    multi,
    voiceId,
    format: output.format,
    output: {
      ...(output.sampleRate ? { sampleRate: output.sampleRate } : {}),
      ...(output.codec ? { codec: output.codec } : {}),
      ...(output.headerless ? { headerless: true } : {}),
    },
    inactivityMs: timeout * 1000,
    maxContexts: MAX_ELEVENLABS_CONTEXTS,
    maxBufferedBytes: limits.maxBufferedBytes,
    stallTimeoutMs: limits.stallTimeoutMs,
    pingIntervalMs: limits.pingIntervalMs,
  };
}

/**
 * ElevenLabs' text-to-speech WebSockets, so their clients (LiveKit's and Pipecat's ElevenLabs TTS, scripts written
 * for their API) speak through Voxsmith with the base URL and key changed. A key in the `xi-api-key` header or the
 * `authorization` query is checked before the upgrade (a refusal is a plain HTTP error with our JSON body, as on
 * /v1/ws/stream); without one the socket opens and the key must come in the first message.
 */
export async function elevenLabsStreamInputRoutes(app: FastifyInstance, options: { limits?: Partial<StreamLimits> }): Promise<void> {
  const limits = { ...DEFAULT_STREAM_LIMITS, ...options.limits };
  const track = vendorSockets(app, 'ElevenLabs WebSockets');

  const admitCaller = async (request: FastifyRequest, reply: FastifyReply | null, principal: Principal) => {
    if (principal.via === 'session') requireOwnOrigin(app, request);
    checkScope(principal, 'speech');
    await enforceApiLimit(app, reply, principal, request.ip);
  };

  const authenticate = async (request: FastifyRequest, reply: FastifyReply) => {
    const presented = queryKey((request.query as Record<string, unknown>).authorization);
    if (presented !== null && request.principal === null) request.principal = await resolvePrincipal(app, request, presented);
    if (request.principal) return admitCaller(request, reply, request.principal);
    // No key yet: it may come in the first message; the address pays for the upgrade meanwhile.
    await enforceApiLimit(app, reply, null, request.ip);
  };

  const serve = (multi: boolean) => (socket: WebSocket, request: FastifyRequest) => {
    const { voice_id: asked } = request.params as { voice_id: string };
    // OpenAI's voice names are ours too, as on /v1/audio/speech.
    const voiceId = app.services.speech.chooseOpenAiVoice('tts-1', asked).voiceId;
    const settings = settingsOf(request.query as Record<string, unknown>, multi, voiceId, limits);
    let remove = (): void => {};
    const register = (principal: Principal, connection: { close(code: number, reason: string): void }) => {
      remove = track(principal, (code, reason) => connection.close(code, reason), request.log);
    };
    socket.on('close', () => remove());
    if (settings instanceof AppError) {
      socket.send(JSON.stringify({ message: settings.message, error: 'invalid_request', code: 1008 }));
      closeSocket(socket, 1008, settings.message);
      return;
    }
    const connection: ElevenLabsConnection = new ElevenLabsConnection(app, socket, request.principal, request.ip, request.log, settings, {
      authenticate: async (key) => {
        const principal = await resolvePrincipal(app, request, key);
        if (!principal) throw new AppError('unauthorized', 'Invalid API key');
        await admitCaller(request, null, principal);
        return principal;
      },
      onPrincipal: (principal) => register(principal, connection),
      checkVoice: async (principal) => {
        const voice = await app.services.voices.resolve(voiceId, principal.userId);
        if (!voice || !isKnownVoice(voice.spec)) throw new AppError('voice_not_found', `No voice "${asked.slice(0, 100)}"`);
      },
    });
    if (request.principal) register(request.principal, connection);
  };

  const route = { websocket: true, preHandler: authenticate } as const;
  app.get('/v1/text-to-speech/:voice_id/stream-input', { ...route, schema: doc(false) }, serve(false));
  app.get('/v1/text-to-speech/:voice_id/multi-stream-input', { ...route, schema: doc(true) }, serve(true));
}

/** Documentation only: the upgrade and its frames (OpenAPI cannot describe frames; docs/api.md tells the whole protocol). */
function doc(multi: boolean): FastifySchema & Record<`x-${string}`, unknown> {
  return {
    summary: multi
      ? 'Text to speech over a WebSocket, many contexts (ElevenLabs compatible)'
      : 'Text to speech over a WebSocket (ElevenLabs compatible)',
    description: multi
      ? 'ElevenLabs’ multi-context socket: `{"text":" ","context_id":"c1","voice_settings":{…}}` opens a context (`contextId` is accepted too), ' +
        'text pieces follow, `flush: true` speaks what the context holds, `{"context_id":"c1","close_context":true}` ends it (a flushed context ' +
        'finishes speaking first; one that was not stops at once), `{"close_socket":true}` speaks every context and closes. Replies carry ' +
        `\`contextId\`. Up to ${MAX_ELEVENLABS_CONTEXTS} contexts may hold text or audio at once; a closed context is freed at once.`
      : 'ElevenLabs’ socket: `{"text":" ","voice_settings":{…}}` opens it, `{"text":"Hello "}` pieces follow (sentences are spoken as they ' +
        'complete), `flush: true` speaks the rest, `{"text":""}` ends the input: the last audio, then `{"isFinal":true}` and the socket closes.',
    tags: [TAG],
    security: [{ xiApiKey: [] }, { apiKey: [] }, { session: [] }],
    params: { type: 'object', properties: { voice_id: { type: 'string', description: 'One of our voice ids, or an OpenAI voice name' } } },
    querystring: ElevenLabsStreamQuery,
    response: { 101: { description: 'Switching Protocols: the socket is open', type: 'null' } },
    'x-websocket-messages': { client: ElevenLabsClientMessage, server: ElevenLabsServerMessage },
  };
}
