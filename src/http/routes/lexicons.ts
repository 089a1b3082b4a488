import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../errors.ts';
import {
  CreateLexiconBody,
  LEXICON_LIMITS,
  LexiconDeleted,
  LexiconList,
  LexiconParams,
  LexiconResponse,
  PLS_CONTENT_TYPES,
  ReplaceLexiconBody,
  UpdateLexiconBody,
} from '../../schemas/lexicons.ts';
import type { Principal } from '../types.ts';
import { requireScope } from '../plugins/auth.ts';

function owner(principal: Principal | null): string {
  if (!principal) throw new AppError('unauthorized');
  return principal.userId;
}

/**
 * /api/lexicons: an account's pronunciation lexicons, by name. An API key with the voices scope manages its owner's lexicons; another
 * account's lexicon answers 404, exactly like one that does not exist. Rules are checked in the service.
 */
export async function lexiconRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { lexicons } = app.services;
  // A lexicon of the largest allowed size, as JSON or PLS, fits in this; the app's 64 KiB JSON limit would not.
  const bodyLimit = LEXICON_LIMITS.plsBytes;
  const common = { preHandler: requireScope('voices'), config: { rateLimit: 'api' as const }, bodyLimit };

  // PLS documents arrive as text (this plugin's routes only); saxes parses them in the service.
  app.addContentTypeParser([...PLS_CONTENT_TYPES], { parseAs: 'string', bodyLimit }, (_request, body, done) => done(null, body));

  r.get(
    '/api/lexicons',
    {
      ...common,
      schema: {
        summary: 'List your lexicons',
        description: 'Names, rule counts and which one is the default, by name.',
        response: { 200: LexiconList },
      },
    },
    async (request) => ({ lexicons: await lexicons.list(owner(request.principal)) }),
  );

  r.post(
    '/api/lexicons',
    {
      ...common,
      schema: {
        summary: 'Create a lexicon',
        description:
          `Rules are \`{grapheme, alias}\` (say the alias instead) or \`{grapheme, phoneme, alphabet?}\` (ipa or x-sampa), matched as whole words, ignoring case. ` +
          `At most ${LEXICON_LIMITS.lexiconsPerAccount} lexicons per account (403 quota_exceeded), ${LEXICON_LIMITS.rulesPerLexicon} rules each; a taken name is 409.`,
        body: CreateLexiconBody,
        response: { 201: LexiconResponse },
      },
    },
    async (request, reply) => {
      const { name, rules, default: makeDefault } = request.body;
      const lexicon = await lexicons.create(owner(request.principal), name, rules, makeDefault);
      return reply.code(201).send({ lexicon });
    },
  );

  r.get(
    '/api/lexicons/:name',
    {
      ...common,
      schema: { summary: 'Get one lexicon', description: 'With all its rules.', params: LexiconParams, response: { 200: LexiconResponse } },
    },
    async (request) => ({ lexicon: await lexicons.get(owner(request.principal), request.params.name) }),
  );

  r.put(
    '/api/lexicons/:name',
    {
      ...common,
      schema: {
        summary: 'Replace a lexicon’s rules',
        description: '`default` sets or clears the account default; left as it was when absent.',
        params: LexiconParams,
        body: ReplaceLexiconBody,
        response: { 200: LexiconResponse },
      },
    },
    async (request) => {
      const { rules, default: makeDefault } = request.body;
      return { lexicon: await lexicons.replace(owner(request.principal), request.params.name, rules, makeDefault) };
    },
  );

  r.patch(
    '/api/lexicons/:name',
    {
      ...common,
      schema: {
        summary: 'Rename a lexicon or make it the default',
        description:
          '`{"default": true}` makes it the account default (used when a request names no lexicon); the previous default stops being one.',
        params: LexiconParams,
        body: UpdateLexiconBody,
        response: { 200: LexiconResponse },
      },
    },
    async (request) => ({ lexicon: await lexicons.update(owner(request.principal), request.params.name, request.body) }),
  );

  r.delete(
    '/api/lexicons/:name',
    { ...common, schema: { summary: 'Delete a lexicon', params: LexiconParams, response: { 200: LexiconDeleted } } },
    async (request) => {
      const { name } = request.params;
      await lexicons.delete(owner(request.principal), name);
      return { name, deleted: true };
    },
  );

  r.put(
    '/api/lexicons/:name/pls',
    {
      ...common,
      schema: {
        summary: 'Import a W3C PLS lexicon',
        description:
          `Creates the lexicon (201) or replaces its rules (200) from a Pronunciation Lexicon Specification 1.0 document ` +
          `(\`${PLS_CONTENT_TYPES.join('`, `')}\`, up to ${LEXICON_LIMITS.plsBytes} bytes, else 413): each \`<lexeme>\`'s graphemes get its ` +
          `preferred \`<alias>\` or \`<phoneme>\` (alphabet ipa or x-sampa, from the phoneme or the \`<lexicon>\`). XML that is not ` +
          'well-formed or not PLS is 400 `invalid_pls`, naming the line and column.',
        params: LexiconParams,
        body: {
          content: Object.fromEntries(PLS_CONTENT_TYPES.map((t) => [t, { schema: Type.String({ description: 'The PLS document' }) }])),
        },
        response: { 200: LexiconResponse, 201: LexiconResponse },
      },
    },
    async (request, reply: FastifyReply) => {
      const xml = request.body;
      const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      if (typeof xml !== 'string' || !(PLS_CONTENT_TYPES as readonly string[]).includes(type))
        throw new AppError('unsupported_media_type', `Send the PLS document as ${PLS_CONTENT_TYPES.join(', ')}`);
      // A body schema per content type leaves the params untyped; the schema above still validated them.
      const { name } = request.params as LexiconParams;
      const { lexicon, created } = await lexicons.importPls(owner(request.principal), name, xml);
      return reply.code(created ? 201 : 200).send({ lexicon });
    },
  );
}
