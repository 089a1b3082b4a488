import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import { requireAuth } from '../plugins/auth.ts';
import type { Principal } from '../types.ts';

const KeyId = Type.String({ minLength: 1, maxLength: 64 });

const KeyList = Type.Object({
  keys: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      masked_key: Type.String({ description: 'The prefix and last characters, the middle hidden' }),
      created_at: Type.String({ format: 'date-time' }),
      last_used: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    }),
  ),
});

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
      preHandler: requireAuth,
      schema: {
        summary: 'Create an API key',
        description: 'The full key is in this answer only; store it. At most 50 live keys per account.',
        body: Type.Object({ name: Type.String({ maxLength: 100, description: 'A label of your choice' }) }, { examples: [{ name: 'laptop' }] }),
        response: {
          201: Type.Object(
            {
              key: Type.String({ description: 'The full key, shown once' }),
              id: Type.String(),
              name: Type.String(),
              created_at: Type.String({ format: 'date-time' }),
            },
            { description: 'The new key' },
          ),
        },
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
      preHandler: requireAuth,
      schema: {
        summary: 'Revoke an API key',
        description: 'Immediate and irreversible; open WebSocket streams of the key close at once. `key_id` in the JSON body or the query string.',
        response: { 200: Type.Object({ id: Type.String(), revoked: Type.Boolean() }) },
        querystring: Type.Object({ key_id: Type.Optional(KeyId) }),
        body: Type.Optional(Type.Union([Type.Object({ key_id: Type.Optional(KeyId) }), Type.Null()])),
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
