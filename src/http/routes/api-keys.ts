import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import { CreateKeyBody, CreatedApiKey, KeyList, RevokedKey, RevokeKeyBody, RevokeKeyQuery } from '../../schemas/api-keys.ts';
import { requireScope } from '../plugins/auth.ts';
import { keyIdOf, scopesOf, type Principal } from '../types.ts';

function principalOf(p: Principal | null): Principal {
  if (!p) throw new AppError('unauthorized');
  return p;
}

/** The key a revoke names: `key_id` or `id`, in the JSON body or the query string (the body wins). */
function keyToRevoke(body: { key_id?: string; id?: string } | null | undefined, query: RevokeKeyQuery): string {
  const keyId = body?.key_id ?? body?.id ?? query.key_id ?? query.id;
  if (!keyId) throw new AppError('validation', 'key_id (or id) is required, in the JSON body or the query string');
  return keyId;
}

/**
 * Key management, with a signed-in session or a Bearer key holding the `keys` scope. A key can mint only keys
 * whose scopes it holds itself (the service enforces it), so a speech-only key that leaks cannot mint anything.
 */
export async function apiKeyRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { apiKeys } = app.services;
  const keysScope = requireScope('keys');

  r.post(
    '/api/auth/api-keys',
    {
      preHandler: keysScope,
      schema: {
        summary: 'Create an API key',
        description:
          'The full key is in this answer only; store it. At most 50 live keys per account. `scopes` bounds what the key may do ' +
          '(all four by default); with a Bearer key (scope `keys`), only scopes that key holds may be given (else 403 `insufficient_scope`).',
        body: CreateKeyBody,
        response: { 201: CreatedApiKey },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request.principal);
      const created = await apiKeys.create(
        { userId: principal.userId, scopes: scopesOf(principal), keyId: keyIdOf(principal) },
        request.body.name,
        request.body.scopes,
      );
      reply.header('Cache-Control', 'no-store');
      return reply.status(201).send(created);
    },
  );

  r.get(
    '/api/auth/api-keys',
    { preHandler: keysScope, schema: { summary: 'List API keys', response: { 200: KeyList } } },
    async (request) => {
      return { keys: await apiKeys.list(principalOf(request.principal).userId) };
    },
  );

  r.delete(
    '/api/auth/api-keys',
    {
      preHandler: keysScope,
      schema: {
        summary: 'Revoke an API key',
        description:
          'Immediate and irreversible; open WebSocket streams of the key close at once. The key as `key_id` (or `id`) in the JSON body or the query string. ' +
          'Every live key it minted (and they minted, down the line) is revoked with it, listed in `also_revoked`. ' +
          'A key may revoke any key of its account, itself included.',
        response: { 200: RevokedKey },
        querystring: RevokeKeyQuery,
        body: RevokeKeyBody,
      },
    },
    async (request) => {
      const keyId = keyToRevoke(request.body, request.query);
      const revoked = await apiKeys.revoke(principalOf(request.principal).userId, keyId);
      if (!revoked) throw new AppError('key_not_found');
      return { ...revoked, revoked: true };
    },
  );
}
