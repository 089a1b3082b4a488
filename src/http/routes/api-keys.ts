import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import { CreateKeyBody, CreatedApiKey, KeyList, RevokedKey, RevokeKeyBody, RevokeKeyQuery } from '../../schemas/api-keys.ts';
import { requireAuth, requireSession } from '../plugins/auth.ts';
import type { Principal } from '../types.ts';

function principalOf(p: Principal | null): Principal {
  if (!p) throw new AppError('unauthorized');
  return p;
}

export async function apiKeyRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { apiKeys } = app.services;

  r.post(
    '/api/auth/api-keys',
    {
      preHandler: requireSession,
      schema: {
        summary: 'Create an API key',
        description: 'The full key is in this answer only; store it. At most 50 live keys per account.',
        body: CreateKeyBody,
        response: { 201: CreatedApiKey },
      },
    },
    async (request, reply) => {
      const created = await apiKeys.create(principalOf(request.principal).userId, request.body.name);
      reply.header('Cache-Control', 'no-store');
      return reply.status(201).send(created);
    },
  );

  r.get('/api/auth/api-keys', { preHandler: requireAuth, schema: { summary: 'List API keys', response: { 200: KeyList } } }, async (request) => {
    return { keys: await apiKeys.list(principalOf(request.principal).userId) };
  });

  r.delete(
    '/api/auth/api-keys',
    {
      preHandler: requireSession,
      schema: {
        summary: 'Revoke an API key',
        description: 'Immediate and irreversible; open WebSocket streams of the key close at once. `key_id` in the JSON body or the query string.',
        response: { 200: RevokedKey },
        querystring: RevokeKeyQuery,
        body: RevokeKeyBody,
      },
    },
    async (request) => {
      const keyId = request.body?.key_id ?? request.query.key_id;
      if (!keyId) throw new AppError('validation', 'key_id is required (JSON body or query string)');
      if (!(await apiKeys.revoke(principalOf(request.principal).userId, keyId))) throw new AppError('key_not_found');
      return { id: keyId, revoked: true };
    },
  );
}
