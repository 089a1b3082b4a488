import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import { FORMATS } from '../../audio/encoders/index.ts';
import type { SpeechChunk, SpeechRequest } from '../../synth/synthesizer.ts';
import { requireAuth } from '../plugins/auth.ts';
import type { SpeechEndpoint } from '../../metrics/metrics.ts';
import { audioResponse } from '../plugins/openapi.ts';
import { keyIdOf, type Principal } from '../types.ts';
import { resolveSpeechRequest, SPEED_MAX, SPEED_MIN } from '../speech-request.ts';

export const SPEAK_FORMATS = ['mp3', 'wav', 'opus', 'flac', 'pcm', 'mulaw'] as const;

const SpeakBody = Type.Object(
  {
    text: Type.String({ description: 'Text to speak (up to MAX_TEXT_CHARS characters)' }),
    voice_id: Type.Optional(Type.String({ maxLength: 200, description: 'A voice id from /api/voices, or "default"' })),
    speed: Type.Optional(Type.Number({ minimum: SPEED_MIN, maximum: SPEED_MAX, description: 'Speaking rate, 1 = normal' })),
    format: Type.Optional(
      Type.Union(SPEAK_FORMATS.map((f) => Type.Literal(f)), {
        description: 'Audio format, mp3 by default: mp3, wav (16-bit), opus (Ogg), flac and pcm (raw 16-bit LE) at 24 kHz mono; mulaw is 8 kHz WAV',
      }),
    ),
  },
  { examples: [{ text: 'Hello from Voxsmith. This is a test.', voice_id: 'flite-slt', speed: 1, format: 'mp3' }] },
);

/**
 * POST /v1/speak streams the audio as it is synthesized. The first chunk is awaited before the status
 * line goes out, so every failure that can happen early still gets a JSON error; later failures cut the
 * stream (and are logged), and a client hanging up cancels the work in the worker.
 */
export async function speakRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/v1/speak',
    {
      preHandler: requireAuth,
      config: { rateLimit: 'api' },
      schema: {
        summary: 'Synthesize speech',
        description:
          'Streams the audio while it is synthesized (FLAC is sent whole, with its exact length in the header). Headers: ' +
          '`X-Voice-Id` (the voice used), `X-Sample-Rate`. Errors before the first byte are JSON; a failure later cuts the stream.',
        tags: ['Speech'],
        body: SpeakBody,
        response: { 200: audioResponse('The speech, in the requested format') },
      },
    },
    async (request, reply) => {
      const principal = request.principal;
      if (!principal) throw new AppError('unauthorized');
      const format = request.body.format ?? 'mp3';
      const speech = await resolveSpeechRequest(app, principal.userId, {
        text: request.body.text,
        voiceId: request.body.voice_id,
        speed: request.body.speed,
        format,
      });
      return sendSpeech(app, request, reply, principal, speech, 'speak');
    },
  );
}

/**
 * Streams one resolved synthesis as the response body (shared by /v1/speak and /v1/audio/speech). The first
 * chunk is awaited before the status line goes out, so every failure that can happen early still gets a
 * JSON error; later failures cut the stream (and are logged), and a client hanging up cancels the work.
 */
export async function sendSpeech(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  principal: Principal,
  speech: SpeechRequest & { voiceId: string },
  endpoint: SpeechEndpoint,
): Promise<FastifyReply> {
  const format = speech.format;
  // FLAC is the one format whose streamed form leaves players without a duration; a FLAC download
  // is sent whole, with the exact length in its header. The others stream.
  speech.buffered = format === 'flac';

  const abort = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  const labels = { endpoint, engine: speech.voice.engine, characters: speech.text.length };
  const iterator = app.services.metrics.meterSpeech(app.services.synthesizer.speak(speech, abort.signal), labels)[Symbol.asyncIterator]();
  const first = await iterator.next();

  async function* rest(): AsyncGenerator<Uint8Array> {
    try {
      if (!first.done) yield (first.value as SpeechChunk).bytes;
      for (;;) {
        const next = await iterator.next();
        if (next.done) break;
        if (next.value.bytes.length > 0) yield next.value.bytes;
      }
      await app.services.usage.record(principal.userId, keyIdOf(principal), speech.text.length);
    } catch (err) {
      if (!abort.signal.aborted) request.log.error({ err }, 'synthesis failed mid-stream');
      throw err;
    } finally {
      abort.abort();
      await iterator.return?.();
    }
  }

  const info = FORMATS[format];
  reply
    .type(info.contentType)
    .header('Content-Disposition', `inline; filename="speech.${info.extension}"`)
    .header('X-Sample-Rate', String(info.sampleRate))
    .header('X-Voice-Id', speech.voiceId)
    .header('Cache-Control', 'no-store');
  return reply.send(Readable.from(rest(), { objectMode: false }));
}
