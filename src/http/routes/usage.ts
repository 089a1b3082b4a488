import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import { requireAuth } from '../plugins/auth.ts';

/** GET /api/usage: what the caller synthesized, per UTC day and per key, over the last `days` days. */
export async function usageRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/api/usage',
    {
      preHandler: requireAuth,
      schema: {
        summary: 'Usage of your account',
        description: 'Characters synthesized and requests, per UTC day and per key, over the last `days` days (30 by default).',
        querystring: Type.Object({ days: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: '1 to 366' })) }),
        response: {
          200: Type.Object({
            plan: Type.String(),
            since: Type.String({ description: 'First UTC day counted, YYYY-MM-DD' }),
            days: Type.Array(Type.Object({ day: Type.String(), characters: Type.Number(), requests: Type.Number() })),
            keys: Type.Array(
              Type.Object({ key_id: Type.Union([Type.String(), Type.Null()]), name: Type.String(), characters: Type.Number(), requests: Type.Number() }),
            ),
          }),
        },
      },
    },
    async (request) => {
      const principal = request.principal;
      if (!principal) throw new AppError('unauthorized');
      const days = Math.min(366, Math.max(1, Number(request.query.days ?? 30)));
      const [user, report] = await Promise.all([app.services.users.findById(principal.userId), app.services.usage.report(principal.userId, days)]);
      return { plan: user?.plan ?? 'free', ...report };
    },
  );
}
