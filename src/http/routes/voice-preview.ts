import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { VoiceParams, VoicePreviewQuery } from '../../schemas/voices.ts';
import { audioResponse } from '../plugins/openapi.ts';
import { requireScope } from '../plugins/auth.ts';
import { hangUpSignal, sendAudio, speechCaller } from '../speech-reply.ts';

/**
 * GET /api/voices/:id/preview: the dashboard's play buttons, and the `preview_url` of the ElevenLabs-shaped voice
 * lists, which their clients fetch with the same key. A signed-in session or a key with the `speech` scope (it
 * synthesizes), only for the fixed preview line of a language, so it is not billed, as a vendor's preview is not:
 * it cannot carry a text of the caller's choosing, is served from the synthesis cache after the first time and
 * stays within the per-key limits.
 */
export async function voicePreviewRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/api/voices/:id/preview',
    {
      preHandler: requireScope('speech'),
      config: { rateLimit: 'api' },
      schema: {
        summary: 'Hear a voice',
        description:
          'A signed-in session or an API key with the `speech` scope (Bearer or `xi-api-key`). MP3 of the fixed preview line for the voice’s language (or `language`), ' +
          'from the synthesis cache when it can; not counted as usage.',
        tags: ['Voices'],
        params: VoiceParams,
        querystring: VoicePreviewQuery,
        response: { 200: audioResponse('The preview, as MP3') },
      },
    },
    async (request, reply) => {
      const signal = hangUpSignal(reply);
      const { userId } = speechCaller(request.principal);
      const speech = await app.services.speech.preview(userId, request.params.id, request.query.language, signal);
      return sendAudio(request, reply, signal, speech);
    },
  );
}
