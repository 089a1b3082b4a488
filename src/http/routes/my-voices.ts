import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import { VoiceDeleted, VoiceParams, VoiceResponse } from '../../schemas/voices.ts';
import { toOwnedPublicVoice } from '../../forge/forge.ts';
import { toPublicVoice } from '../../voices/voice.ts';
import { DEFAULT_VOICE_ALIAS } from '../../voices/builtin.ts';
import { requireScope } from '../plugins/auth.ts';

/**
 * One voice by id: built-in voices for everyone, one's own clones and bred voices (with their genome and
 * measurements) for their owner. Another user's voice answers 404, exactly like one that does not exist.
 */
export async function myVoiceRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { ownedVoices, voices } = app.services;

  r.get(
    '/api/voices/:id',
    {
      schema: {
        summary: 'Get one voice',
        description:
          'A built-in voice, or one of your own (with its genome and measurements). Another user’s voice is 404. `default` is the voice `voice_id: "default"` speaks now ' +
          '(DEFAULT_VOICE, else the best natural English voice installed, else flite-slt).',
        params: VoiceParams,
        response: { 200: VoiceResponse },
      },
    },
    async (request) => {
      const { id } = request.params;
      const builtin = id === DEFAULT_VOICE_ALIAS ? voices.defaultVoice() : voices.catalogVoice(id); // built-in and VOICES_DIR voices
      if (builtin) return { voice: toPublicVoice(builtin) };
      const userId = request.principal?.userId;
      const owned = userId ? await ownedVoices.getOwned(id, userId) : null;
      if (!owned) throw new AppError('voice_not_found', `No voice "${id.slice(0, 100)}"`);
      return { voice: toOwnedPublicVoice(owned) };
    },
  );

  r.delete(
    '/api/voices/:id',
    {
      preHandler: requireScope('voices'),
      config: { rateLimit: 'api' },
      schema: {
        summary: 'Delete one of your voices',
        description: 'Built-in voices cannot be deleted (403).',
        params: VoiceParams,
        response: { 200: VoiceDeleted },
      },
    },
    async (request) => {
      const { id } = request.params;
      if (!request.principal) throw new AppError('unauthorized');
      if (voices.catalogVoice(id)) throw new AppError('forbidden', 'Built-in voices cannot be deleted');
      if (!(await ownedVoices.deleteOwned(id, request.principal.userId))) {
        throw new AppError('voice_not_found', `No voice "${id.slice(0, 100)}"`);
      }
      voices.forget(id);
      return { id, deleted: true };
    },
  );
}
