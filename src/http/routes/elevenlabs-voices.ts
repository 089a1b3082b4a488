import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import {
  ElevenLabsVoice,
  ElevenLabsVoiceList,
  ElevenLabsVoicePage,
  ElevenLabsVoiceParams,
  ElevenLabsVoiceSearchQuery,
  DEFAULT_V2_PAGE_SIZE,
  MAX_V2_PAGE_SIZE,
  type ElevenLabsVoice as ElevenLabsVoiceShape,
} from '../../schemas/elevenlabs.ts';
import { MAX_SEARCH_QUERY_CHARS } from '../../schemas/field-limits.ts';
import { isValidSearchQuery } from '../../voices/search.ts';
import type { Voice } from '../../voices/voice.ts';

const TAG = 'ElevenLabs compatible';
const CATEGORY = { builtin: 'premade', clone: 'cloned', breed: 'generated' } as const;

/** One of our voices in their shape: what their clients show in a voice picker; `base` is where its preview is. */
function toElevenLabsVoice(v: Voice, base: string): ElevenLabsVoiceShape {
  // Our first tag is the accent or region word ("American", "Scottish") where the catalog knows one.
  const accent = v.tags[0]?.toLowerCase();
  return {
    voice_id: v.id,
    name: v.name,
    category: CATEGORY[v.source],
    description: v.description,
    labels: { gender: v.gender, language: v.language, engine: v.engine, ...(accent ? { accent } : {}) },
    // The fixed preview line, fetched with the same key (it is not billed).
    preview_url: `${base}/api/voices/${encodeURIComponent(v.id)}/preview`,
    available_for_tiers: [],
  };
}

/**
 * Voice lists in ElevenLabs' shape under their paths: `GET /v1/voices` (their SDK's `voices.getAll`),
 * `GET /v1/voices/{voice_id}` (`voices.get`) and `GET /v2/voices` (`voices.search`, paged). Public like
 * /api/voices; with a key, your own voices too.
 */
export async function elevenLabsVoiceRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { voices } = app.services;
  // PUBLIC_URL when set; otherwise the address the client reached us on.
  const baseOf = (request: FastifyRequest): string =>
    app.config.publicUrlSet ? app.config.publicUrl.href.replace(/\/$/, '') : `${request.protocol}://${request.host}`;

  r.get(
    '/v1/voices',
    { schema: { summary: 'List voices (ElevenLabs shape)', tags: [TAG], response: { 200: ElevenLabsVoiceList } } },
    async (request) => ({
      voices: (await voices.list({}, request.principal?.userId ?? null)).map((v) => toElevenLabsVoice(v, baseOf(request))),
    }),
  );

  r.get(
    '/v1/voices/:voice_id',
    { schema: { summary: 'One voice (ElevenLabs shape)', tags: [TAG], params: ElevenLabsVoiceParams, response: { 200: ElevenLabsVoice } } },
    async (request) => {
      const voice = await voices.resolve(request.params.voice_id, request.principal?.userId ?? null);
      if (!voice) throw new AppError('voice_not_found', `No voice "${request.params.voice_id.slice(0, 100)}"`);
      return toElevenLabsVoice(voice, baseOf(request));
    },
  );

  r.get(
    '/v2/voices',
    {
      schema: {
        summary: 'Search voices, paged (ElevenLabs shape)',
        description:
          '`search` ranks by relevance as /api/voices/search does; without it, every voice. `category` is premade, cloned or generated.',
        tags: [TAG],
        querystring: ElevenLabsVoiceSearchQuery,
        response: { 200: ElevenLabsVoicePage },
      },
    },
    async (request) => {
      const { search, page_size: size, next_page_token: token, category } = request.query;
      const pageSize = size === undefined ? DEFAULT_V2_PAGE_SIZE : Number(size);
      if (pageSize < 1 || pageSize > MAX_V2_PAGE_SIZE) throw new AppError('validation', `page_size must be 1 to ${MAX_V2_PAGE_SIZE}`);
      const viewer = request.principal?.userId ?? null;
      const q = search?.trim() ?? '';
      if (q !== '' && !isValidSearchQuery(q))
        throw new AppError('validation', `search must be at most ${MAX_SEARCH_QUERY_CHARS} characters of text`);
      // The page token is the offset of the next page: the list is computed afresh for every page.
      const start = token === undefined ? 0 : /^\d{1,9}$/.test(token) ? Number(token) : -1;
      if (start < 0) throw new AppError('validation', 'next_page_token must be a token from a previous page');
      const found = (q === '' ? await voices.list({}, viewer) : await voices.search(q, viewer)).map((v) =>
        toElevenLabsVoice(v, baseOf(request)),
      );
      const matching = category === undefined ? found : found.filter((v) => v.category === category);
      const page = matching.slice(start, start + pageSize);
      const next = start + page.length;
      const hasMore = next < matching.length;
      return { voices: page, has_more: hasMore, total_count: matching.length, next_page_token: hasMore ? String(next) : null };
    },
  );
}
