import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { SpeakBody } from '../../schemas/speech.ts';
import { audioResponse } from '../plugins/openapi.ts';
import { hangUpSignal, sendAudio, speakInput, speechCaller, speechRouteOptions } from '../speech-reply.ts';

/**
 * POST /v1/speak streams the audio as it is synthesized. The speech service renders the first chunk before the
 * status line goes out, so every failure that can happen early still gets a JSON error; later failures cut the
 * stream (and are logged), and a client hanging up cancels the work in the worker.
 */
export async function speakRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/v1/speak',
    {
      ...speechRouteOptions,
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
      const signal = hangUpSignal(reply);
      const speech = await app.services.speech.speak(speechCaller(request.principal), speakInput(request.body, 'speak', true), signal);
      return sendAudio(request, reply, signal, speech);
    },
  );
}
