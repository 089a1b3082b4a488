import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../errors.ts';
import { UsageService, type UsageRow } from '../../accounts/usage.ts';
import { MAX_USAGE_DAYS, UsageQuery, UsageReport } from '../../schemas/usage.ts';
import { requireScope } from '../plugins/auth.ts';

const CSV_COLUMNS = ['day', 'key_id', 'key_name', 'revoked', 'characters', 'requests'] as const;

/** RFC 4180 quoting; a leading =, +, - or @ is neutralised so a spreadsheet never runs a key name as a formula. */
function csvField(value: string | number | boolean | null): string {
  let text = value === null ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n']/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function usageCsv(rows: UsageRow[]): string {
  const lines = rows.map((r) => [r.day, r.key_id, r.name, r.revoked, r.characters, r.requests].map(csvField).join(','));
  return `${[CSV_COLUMNS.join(','), ...lines].join('\r\n')}\r\n`;
}

/** GET /api/usage: what the caller synthesized, per UTC day and per key, over a range of days; JSON or CSV. */
export async function usageRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/api/usage',
    {
      preHandler: requireScope('usage'),
      schema: {
        summary: 'Usage of your account',
        description:
          'Characters synthesized and requests, per UTC day and per key (revoked keys marked), over the last `days` days (30 by default) or from `from` to `to`. `format=csv` answers one row per day and key as a `text/csv` download.',
        querystring: UsageQuery,
        response: {
          200: {
            description: 'The report (JSON), or with format=csv the rows as CSV',
            content: {
              'application/json': { schema: UsageReport },
              'text/csv': { schema: Type.String({ description: 'day,key_id,key_name,revoked,characters,requests' }) },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const principal = request.principal;
      if (!principal) throw new AppError('unauthorized');
      const { days, from, to, format } = request.query;
      const range = UsageService.range({ days: days === undefined ? undefined : Number(days), from, to }, MAX_USAGE_DAYS);
      if (format === 'csv') {
        const rows = await app.services.usage.rows(principal.userId, range);
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="voxsmith-usage-${range.since}-to-${range.until}.csv"`)
          .send(usageCsv(rows));
      }
      const [user, report] = await Promise.all([
        app.services.users.findById(principal.userId),
        app.services.usage.report(principal.userId, range),
      ]);
      return reply.type('application/json; charset=utf-8').send({ plan: user?.plan ?? 'free', ...report });
    },
  );
}
