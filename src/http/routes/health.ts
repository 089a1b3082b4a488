import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors.ts';
import { errorEnvelope } from '../error-body.ts';
import { Health, NotReady, Readiness } from '../../schemas/health.ts';

const CHECK_TIMEOUT_MS = 2_000;

function withTimeout(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * For load balancers and orchestrators. `/healthz`: the process is up (restart it if not). `/readyz`: every
 * readiness check passes (database, Redis when configured, engines), else 503 naming what failed (send it
 * no traffic for now). Neither needs credentials; neither says more than a check's name and "ok"/"failing".
 */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/healthz',
    { schema: { summary: 'Liveness', description: 'The process is up. No credentials.', response: { 200: Health } } },
    async (_request, reply) => {
      reply.header('Cache-Control', 'no-store');
      return { status: 'ok' };
    },
  );

  app.get(
    '/readyz',
    {
      schema: {
        summary: 'Readiness',
        description: 'Every readiness check passes (database, Redis when configured, engines); else 503 naming what failed.',
        response: { 200: Readiness, 503: NotReady },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      const results = await Promise.all(
        app.services.readiness.map(async ({ name, check }) => {
          try {
            await withTimeout(check(), CHECK_TIMEOUT_MS);
            return { name, ok: true };
          } catch (err) {
            request.log.warn({ check: name, err: { message: err instanceof Error ? err.message : String(err) } }, 'readiness check failed');
            return { name, ok: false };
          }
        }),
      );
      const checks = Object.fromEntries(results.map((r) => [r.name, r.ok ? 'ok' : 'failing']));
      const failing = results.filter((r) => !r.ok).map((r) => r.name);
      if (failing.length > 0) {
        return reply.status(503).send({
          ...errorEnvelope(new AppError('unavailable', `Not ready: ${failing.join(', ')}`), request.id),
          status: 'unavailable',
          checks,
        });
      }
      return { status: 'ready', checks };
    },
  );
}
