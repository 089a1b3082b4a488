import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';
import { isOwnHost, type OriginRules } from '../origin-policy.ts';

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Constant-time comparison of a presented token with the configured one (digests: equal lengths). */
export function tokenMatches(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(plain) === 4) return plain.startsWith('127.');
  return plain === '::1';
}

const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'];

/**
 * With METRICS_TOKEN: `Authorization: Bearer <token>` or 401. Without: loopback peers only, and not when the
 * request came through a proxy on this host (a forwarding header says so), since then anyone may be behind it,
 * nor when it names a foreign Host: a page of evil.example that rebinds its name to 127.0.0.1 makes this
 * machine's browser a loopback peer, but the browser still sends `Host: evil.example`.
 */
export function authorizeScrape(request: FastifyRequest, token: string | null, rules: OriginRules): void {
  if (token !== null) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (!match || !tokenMatches(match[1], token)) {
      throw new AppError('unauthorized', 'Metrics need "Authorization: Bearer <METRICS_TOKEN>"');
    }
    return;
  }
  const proxied = FORWARDING_HEADERS.some((h) => request.headers[h] !== undefined);
  if (!isLoopback(request.socket.remoteAddress) || proxied) {
    throw new AppError('forbidden', 'Metrics are served to loopback clients only; set METRICS_TOKEN to scrape from elsewhere');
  }
  const { host } = request.headers;
  if (host !== undefined && !isOwnHost(rules, host)) {
    throw new AppError(
      'forbidden',
      'Metrics refuse a Host that names neither an IP address, localhost nor PUBLIC_URL (DNS rebinding); set METRICS_TOKEN to scrape by name',
    );
  }
}

/**
 * Counts and times every response by route pattern, and serves GET /metrics (Prometheus text format).
 * Register before the routes so the hook covers them.
 */
async function metrics(app: FastifyInstance): Promise<void> {
  const { metrics } = app.services;
  app.addHook('onResponse', async (request, reply) => {
    metrics.observeRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
  });

  app.get(
    '/metrics',
    {
      config: { ownAuthorization: true },
      schema: {
        summary: 'Prometheus metrics',
        description:
          'Request counts and latencies by route and status, synthesis seconds and characters by engine, time to first audio, ' +
          'worker-pool queue depth, open WebSocket streams, rate-limit refusals, and process metrics, in the Prometheus text ' +
          'format. With METRICS_TOKEN set it needs `Authorization: Bearer <METRICS_TOKEN>`; unset, it answers loopback clients only, ' +
          "under a Host that is an IP address, localhost or PUBLIC_URL's (DNS rebinding).",
        tags: ['Operations'],
        security: [{ metricsToken: [] }],
        response: {
          200: {
            description: 'Prometheus text exposition format 0.0.4',
            content: { 'text/plain': { schema: { type: 'string', example: '# HELP voxsmith_http_requests_total ...\n' } } },
          },
        },
      },
    },
    async (request, reply) => {
      authorizeScrape(request, app.config.metricsToken, app.config);
      const { contentType, text } = await metrics.render();
      return reply.header('Cache-Control', 'no-store').type(contentType).send(text);
    },
  );
}

export const metricsPlugin = fp(metrics, { name: 'voxsmith-metrics' });
