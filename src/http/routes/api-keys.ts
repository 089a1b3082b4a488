import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import { requireAuth } from '../plugins/auth.ts';
import type { Principal } from '../types.ts';

const MAX_KEYS_PER_USER = 50;

const KeyId = Type.String({ minLength: 1, maxLength: 64 });

function principalOf(p: Principal | null): Principal {
  if (!p) throw new AppError('unauthorized');
  return p;
}

export async function apiKeyRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { apiKeys, sharedState } = app.services;

  r.post(
    '/api/auth/api-keys',
    {
      preHandler: requireAuth,
      schema: {
        body: Type.Object({ name: Type.String({ maxLength: 100 }) }),
        response: {
          201: Type.Object({ key: Type.String(), id: Type.String(), name: Type.String(), created_at: Type.String() }),
        },
      },
    },
    async (request, reply) => {
      const { userId } = principalOf(request.principal);
      const name = request.body.name.trim();
      if (name.length === 0) throw new AppError('validation', 'name must not be empty');
      if ((await apiKeys.list(userId)).length >= MAX_KEYS_PER_USER) {
        throw new AppError('validation', `At most ${MAX_KEYS_PER_USER} active keys per account; revoke one first`);
      }
      reply.header('Cache-Control', 'no-store');
      return reply.status(201).send(await apiKeys.create(userId, name));
    },
  );

  r.get('/api/auth/api-keys', { preHandler: requireAuth }, async (request) => {
    return { keys: await apiKeys.list(principalOf(request.principal).userId) };
  });

  r.delete(
    '/api/auth/api-keys',
    {
      preHandler: requireAuth,
      schema: {
        querystring: Type.Object({ key_id: Type.Optional(KeyId) }),
        body: Type.Optional(Type.Union([Type.Object({ key_id: Type.Optional(KeyId) }), Type.Null()])),
      },
    },
    async (request) => {
      const keyId = request.body?.key_id ?? request.query.key_id;
      if (!keyId) throw new AppError('validation', 'key_id is required (JSON body or query string)');
      if (!(await apiKeys.revoke(principalOf(request.principal).userId, keyId))) throw new AppError('key_not_found');
      await sharedState.publish({ type: 'key-revoked', keyId });
      return { id: keyId, revoked: true };
    },
  );
}
