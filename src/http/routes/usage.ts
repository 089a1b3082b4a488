import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import { requireAuth } from '../plugins/auth.ts';

const DAY_MS = 86_400_000;

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
      const since = new Date(Date.now() - (days - 1) * DAY_MS).toISOString().slice(0, 10);
      const [user, rows, keys] = await Promise.all([
        app.services.users.findById(principal.userId),
        app.services.usage.forUser(principal.userId, since),
        app.services.db.selectFrom('api_keys').select(['id', 'name']).where('user_id', '=', principal.userId).execute(),
      ]);
      const names = new Map(keys.map((k) => [k.id, k.name]));
      const byDay = new Map<string, { day: string; characters: number; requests: number }>();
      const byKey = new Map<string, { key_id: string | null; name: string; characters: number; requests: number }>();
      for (const row of rows) {
        const d = byDay.get(row.day) ?? { day: row.day, characters: 0, requests: 0 };
        d.characters += row.characters;
        d.requests += row.requests;
        byDay.set(row.day, d);
        const k = byKey.get(row.key_id ?? '') ?? {
          key_id: row.key_id,
          name: row.key_id === null ? 'Dashboard (session)' : (names.get(row.key_id) ?? 'deleted key'),
          characters: 0,
          requests: 0,
        };
        k.characters += row.characters;
        k.requests += row.requests;
        byKey.set(row.key_id ?? '', k);
      }
      return { plan: user?.plan ?? 'free', since, days: [...byDay.values()], keys: [...byKey.values()] };
    },
  );
}
