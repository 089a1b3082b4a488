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
import { SignInService } from './accounts/sign-in.ts';
import { UsageService } from './accounts/usage.ts';
import { UserService } from './accounts/users.ts';
import { openStore } from './store/database.ts';
import { openSharedState } from './store/shared-state/open.ts';
import type { SharedState } from './store/shared-state/shared-state.ts';
import { errorsPlugin, frameworkError, writeClientError } from './http/plugins/errors.ts';
import { authPlugin } from './http/plugins/auth.ts';
import { rateLimitPlugin } from './http/plugins/rate-limit.ts';
import { logRedact, logSerializers } from './http/log.ts';
import { metricsPlugin } from './http/plugins/metrics.ts';
import { Metrics } from './metrics/metrics.ts';
import { openapiPlugin } from './http/plugins/openapi.ts';
import { openaiRoutes } from './http/routes/openai.ts';
import { authRoutes } from './http/routes/auth.ts';
import { apiKeyRoutes } from './http/routes/api-keys.ts';
import { verifyPageRoute } from './http/routes/verify-page.ts';
import { dashboardRoutes } from './http/routes/dashboard.ts';
import { healthRoutes } from './http/routes/health.ts';
import { voiceRoutes } from './http/routes/voices.ts';
import { speakRoutes } from './http/routes/speak.ts';
import { usageRoutes } from './http/routes/usage.ts';
import { streamRoutes, websocketServerOptions } from './http/routes/stream.ts';
import websocket from '@fastify/websocket';
import type { StreamLimits } from './http/stream/connection.ts';
import { SpeechService } from './speech/speech-service.ts';
import { createSynthesizer } from './synth/synthesizer.ts';
import { VoiceLibrary } from './voices/library.ts';
import { BUILTIN_VOICES } from './voices/builtin.ts';
import { scanVoicesDir } from './voices/neural-catalog.ts';
import { VoiceForge } from './voices/forge.ts';
import { SpeechAnalyzer } from './voices/forge-pool.ts';
import { DbVoiceStore } from './voices/owned-store.ts';
import { forgeRoutes } from './http/routes/forge.ts';
import { myVoiceRoutes } from './http/routes/my-voices.ts';
import './http/types.ts';

export interface AppOptions {
  /** Overrides of the WebSocket stream's limits (tests shorten timeouts). */
  streamLimits?: Partial<StreamLimits>;
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

/** Trusts the nearest `hops` proxies (Fastify's types take a function for a hop count). */
function hopsTrusted(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

/** Builds every service once, from the configuration, choosing each swappable implementation here. */
async function buildServices(config: Readonly<Config>, app: FastifyInstance, options: AppOptions): Promise<Services> {
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, pgSchema: options.pgSchema }, app.log);
  const { db } = store;
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
  const neural = await scanVoicesDir(config.voicesDir);
  for (const p of neural.problems) app.log.warn({ path: p.path, reason: p.reason }, `VOICES_DIR: skipped ${p.path}: ${p.reason}`);
  if (neural.voices.length > 0) app.log.info({ voicesDir: config.voicesDir, voices: neural.voices.length }, `VOICES_DIR: ${neural.voices.length} neural voices loaded`);
  const synthesizer = createSynthesizer({ workers: config.workers ?? undefined, neural: neural.models, loudnessTargetLufs: config.loudnessTargetLufs });
  app.addHook('onClose', () => synthesizer.close());
  const ownedVoices = new DbVoiceStore(db, store.dialect, { maxVoices: config.maxVoicesPerUser, maxSampleBytes: config.maxSampleBytesPerUser });
  const voices = new VoiceLibrary(ownedVoices, [...BUILTIN_VOICES, ...neural.voices]);
  const forgeAnalyzer = new SpeechAnalyzer();
  app.addHook('onClose', () => forgeAnalyzer.close());
  const magicLinks = new MagicLinkService(db, config.magicLinkTtlMs);
  const metrics = new Metrics();
  metrics.watchPool(() => synthesizer.stats());
  const usage = new UsageService(db);
  return {
    db,
    synthesizer,
    voices,
    ownedVoices,
    forge: new VoiceForge({ synthesizer, library: voices, store: ownedVoices, analyzer: forgeAnalyzer }),
    sharedState,
    readiness: [
      { name: 'database', check: () => store.ping() },
      { name: 'engines', check: () => synthesizer.ready() },
      ...(sharedState.kind === 'memory' ? [] : [{ name: sharedState.kind, check: () => sharedState.ping() }]),
    ],
    mailer,
    users: new UserService(db),
    magicLinks,
    signIn: new SignInService(magicLinks, mailer, config.publicUrl),
    sessions: new SessionService(db, config.sessionIdleMs, config.sessionMaxMs, sharedState),
    apiKeys: new ApiKeyService(db, store.dialect, sharedState),
    usage,
    metrics,
    speech: new SpeechService({ synthesizer, voices, usage, metrics, maxTextChars: config.maxTextChars, maxAudioSeconds: config.maxAudioSeconds }),
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
    // Errors of Node's HTTP parser and of the router still answer in the one error envelope.
    clientErrorHandler: writeClientError,
    frameworkErrors: frameworkError,
    // Behind a load balancer the client address comes from X-Forwarded-For, but only from trusted proxies.
    trustProxy: typeof config.trustProxy === 'number' ? hopsTrusted(config.trustProxy) : config.trustProxy,
    forceCloseConnections: 'idle',
    // Slow clients (a body trickled one byte at a time) are cut with 408 instead of holding a socket for ever.
    // Node checks these bounds only every connectionsCheckingInterval, so it is a fraction of the shortest.
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    http: {
      headersTimeout: config.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(config.headersTimeoutMs / 4))),
    },
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
  // Both watch routes as they are added: before every route.
  await app.register(openapiPlugin);
  await app.register(metricsPlugin);
  await app.register(cookie);
  await app.register(authPlugin);
  await app.register(rateLimitPlugin);

  await app.register(authRoutes);
  await app.register(apiKeyRoutes);
  await app.register(verifyPageRoute);
  // The web app at / and its client routes; every API route above keeps precedence over its fallback.
  await app.register(dashboardRoutes);
  await app.register(healthRoutes);
  await app.register(voiceRoutes);
  await app.register(speakRoutes);
  await app.register(forgeRoutes);
  await app.register(myVoiceRoutes);
  await app.register(openaiRoutes);
  await app.register(usageRoutes);
  await app.register(websocket, { options: websocketServerOptions });
  await app.register(streamRoutes, { limits: options.streamLimits });
  return app;
}
