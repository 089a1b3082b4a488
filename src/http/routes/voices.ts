import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import { parseVoiceFilter } from '../../voices/filter.ts';
import { acceptedLanguages } from '../../voices/order.ts';
import { isValidSearchQuery } from '../../voices/search.ts';
import { toPublicVoice } from '../../voices/voice.ts';
import { MAX_SEARCH_QUERY_CHARS } from '../../schemas/field-limits.ts';
import { VoiceList, VoiceListQuery, VoiceSearchQuery, MAX_VOICE_SEARCH_LIMIT } from '../../schemas/voices.ts';

/** Voice list and search are public; a signed-in caller (key or session) also sees their own voices. */
export async function voiceRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { voices } = app.services;

  r.get(
    '/api/voices',
    {
      schema: {
        summary: 'List voices',
        description:
          'Public. Built-in voices, plus your own when signed in (key or session). `language` matches a BCP 47 prefix (en matches en-US and en-GB). ' +
          'Ordered: your own voices, then natural voices in the languages of Accept-Language (English without it), then their other voices, then natural voices in other languages, then the rest.',
        querystring: VoiceListQuery,
        response: { 200: VoiceList },
      },
    },
    async (request) => {
      const parsed = parseVoiceFilter(request.query);
      if (!parsed.ok) throw new AppError('validation', parsed.error);
      const list = await voices.list(parsed.filter, request.principal?.userId ?? null, {
        languages: acceptedLanguages(request.headers['accept-language']),
      });
      return { voices: list.map(toPublicVoice) };
    },
  );

  r.get(
    '/api/voices/search',
    {
      schema: {
        summary: 'Search voices',
        description: 'Public. Free-text keywords over name, language, accent, gender and description, fuzzy and by prefix, best first.',
        querystring: VoiceSearchQuery,
        response: { 200: VoiceList },
      },
    },
    async (request) => {
      const { q } = request.query;
      if (q === undefined || q.trim() === '')
        throw new AppError('validation', 'q is required: free-text keywords such as "british female"');
      if (!isValidSearchQuery(q)) throw new AppError('validation', `q must be at most ${MAX_SEARCH_QUERY_CHARS} characters of text`);
      const limit = request.query.limit === undefined ? undefined : Math.min(MAX_VOICE_SEARCH_LIMIT, Number(request.query.limit));
      const found = await voices.search(q, request.principal?.userId ?? null, limit);
      return { voices: found.map(toPublicVoice) };
    },
  );
}
