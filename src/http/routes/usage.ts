import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import { DEFAULT_USAGE_DAYS, MAX_USAGE_DAYS, UsageQuery, UsageReport } from '../../schemas/usage.ts';
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
        querystring: UsageQuery,
        response: { 200: UsageReport },
      },
    },
    async (request) => {
      const principal = request.principal;
      if (!principal) throw new AppError('unauthorized');
      const days = Math.min(MAX_USAGE_DAYS, Math.max(1, Number(request.query.days ?? DEFAULT_USAGE_DAYS)));
      const [user, report] = await Promise.all([app.services.users.findById(principal.userId), app.services.usage.report(principal.userId, days)]);
      return { plan: user?.plan ?? 'free', ...report };
    },
  );
}
