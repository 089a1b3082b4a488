import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import type { DestinationStream } from 'pino';
import type { Config } from './config.ts';
import type { Services } from './services.ts';
import { ApiKeyService } from './accounts/api-keys.ts';
import { MagicLinkService } from './accounts/magic-links.ts';
import { OutboxMailer, SmtpMailer, type Mailer } from './accounts/mailer.ts';
import { SessionService } from './accounts/sessions.ts';
import { UsageService } from './accounts/usage.ts';
import { UserService } from './accounts/users.ts';
import { openStore } from './store/database.ts';
import { openSharedState } from './store/shared-state/open.ts';
import type { SharedState } from './store/shared-state/shared-state.ts';
import { errorsPlugin } from './http/plugins/errors.ts';
import { authPlugin } from './http/plugins/auth.ts';
import { rateLimitPlugin } from './http/plugins/rate-limit.ts';
import { logRedact, logSerializers } from './http/log.ts';
import { authRoutes } from './http/routes/auth.ts';
import { apiKeyRoutes } from './http/routes/api-keys.ts';
import { verifyPageRoute } from './http/routes/verify-page.ts';
import { healthRoutes } from './http/routes/health.ts';
import { dashboardRoutes } from './http/routes/dashboard.ts';
import './http/types.ts';

export interface AppOptions {
  /** Where log lines go (tests capture them); stdout by default. */
  logStream?: DestinationStream;
  mailer?: Mailer;
  sharedState?: SharedState;
  /** PostgreSQL schema for this app (tests isolate themselves with one each); wins over ?schema= in DATABASE_URL. */
  pgSchema?: string;
  /** Redis key prefix for this app (tests isolate themselves with one each); wins over ?prefix= in REDIS_URL. */
  redisPrefix?: string;
}

const JSON_BODY_LIMIT = 64 * 1024;

/** Builds every service once, from the configuration, choosing each swappable implementation here. */
async function buildServices(config: Readonly<Config>, app: FastifyInstance, options: AppOptions): Promise<Services> {
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, pgSchema: options.pgSchema }, app.log);
  const { db, dialect } = store;
  // Ends the pool even of a node that never reached PostgreSQL (db.destroy alone would not).
  app.addHook('onClose', () => store.close());
  const sharedState = options.sharedState ?? (await openSharedState(config.redisUrl, { redisPrefix: options.redisPrefix, log: app.log }));
  const mailer =
    options.mailer ??
    (config.smtpUrl
      ? new SmtpMailer(config.smtpUrl, config.mailFrom)
      : new OutboxMailer(join(config.dataDir, 'outbox'), config.mailFrom, (path, mail) => {
          // Local mode only (no SMTP_URL): the developer needs the link, and the log is where they look.
          app.log.info({ to: mail.to, file: path }, `sign-in mail written to the outbox:\n${mail.text}`);
        }));
  return {
    db,
    dbDialect: dialect,
    sharedState,
    readiness: [
      { name: 'database', check: () => store.ping() },
      ...(sharedState.kind === 'memory' ? [] : [{ name: sharedState.kind, check: () => sharedState.ping() }]),
    ],
    mailer,
    users: new UserService(db),
    magicLinks: new MagicLinkService(db, config.magicLinkTtlMs),
    sessions: new SessionService(db, config.sessionIdleMs, config.sessionMaxMs),
    apiKeys: new ApiKeyService(db),
    usage: new UsageService(db),
  };
}

export async function buildApp(config: Readonly<Config>, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: config.logLevel,
      serializers: logSerializers,
      redact: logRedact,
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    bodyLimit: JSON_BODY_LIMIT,
    genReqId: () => randomUUID(),
    forceCloseConnections: 'idle',
    // Strict types: "2" is not a number for speed, and so on; query strings are declared as strings.
    ajv: { customOptions: { coerceTypes: false } },
  });

  const services = await buildServices(config, app, options);
  app.decorate('config', config);
  app.decorate('services', services);
  app.addHook('onClose', async () => {
    await services.sharedState.close();
    await services.mailer.close();
    await services.db.destroy();
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });

  await app.register(errorsPlugin);
  await app.register(cookie);
  await app.register(authPlugin);
  await app.register(rateLimitPlugin);

  await app.register(authRoutes);
  await app.register(apiKeyRoutes);
  await app.register(verifyPageRoute);
  await app.register(healthRoutes);
  // The web app at / and its client routes; every API route above keeps precedence over its fallback.
  await app.register(dashboardRoutes);
  return app;
}
