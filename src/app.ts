import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import type { DestinationStream } from 'pino';
import type { Config } from './config.ts';
import type { Services } from './services.ts';
import { Shutdown } from './shutdown.ts';
import { startSpeechEngines, type SpeechEngines } from './speech-engines.ts';
import { ApiKeyService } from './accounts/api-keys.ts';
import { MagicLinkService } from './accounts/magic-links.ts';
import { OutboxMailer, type Mailer } from './accounts/mailer.ts';
import { SessionService } from './accounts/sessions.ts';
import { SignInService } from './accounts/sign-in.ts';
import { UsageService } from './accounts/usage.ts';
import { UserService } from './accounts/users.ts';
import { OperatorPolicy } from './accounts/operators.ts';
import { openStore } from './store/database.ts';
import { openSharedState } from './store/shared-state/open.ts';
import type { SharedState } from './store/shared-state/shared-state.ts';
import { errorsPlugin, frameworkError, writeClientError } from './http/plugins/errors.ts';
import { authPlugin } from './http/plugins/auth.ts';
import { rateLimitPlugin } from './http/plugins/rate-limit.ts';
import { SchemaCompilations } from './http/lazy-schemas.ts';
import { logRedact, logSerializers } from './http/log.ts';
import { metricsPlugin } from './http/plugins/metrics.ts';
import { Metrics } from './metrics/metrics.ts';
import { openapiPlugin } from './http/plugins/openapi.ts';
import { openaiRoutes } from './http/routes/openai.ts';
import { elevenLabsRoutes } from './http/routes/elevenlabs.ts';
import { elevenLabsVoiceRoutes } from './http/routes/elevenlabs-voices.ts';
import { elevenLabsAccountRoutes } from './http/routes/elevenlabs-account.ts';
import { authRoutes } from './http/routes/auth.ts';
import { apiKeyRoutes } from './http/routes/api-keys.ts';
import { verifyPageRoute } from './http/routes/verify-page.ts';
import { dashboardRoutes } from './http/routes/dashboard.ts';
import { healthRoutes } from './http/routes/health.ts';
import { voiceRoutes } from './http/routes/voices.ts';
import { speakRoutes } from './http/routes/speak.ts';
import { speakWithTimestampsRoutes } from './http/routes/speak-with-timestamps.ts';
import { usageRoutes } from './http/routes/usage.ts';
import { wyomingRoutes } from './http/routes/wyoming.ts';
import { sdkRoutes } from './http/routes/sdk.ts';
import { streamRoutes, websocketServerOptions } from './http/routes/stream.ts';
import { cartesiaRoutes } from './http/routes/cartesia.ts';
import { deepgramSpeakRoutes } from './http/routes/deepgram-speak.ts';
import { elevenLabsStreamInputRoutes } from './http/routes/elevenlabs-stream-input.ts';
import websocket from '@fastify/websocket';
import type { StreamLimits } from './http/stream/connection.ts';
import { SpeechCache } from './speech/cache.ts';
import { FairScheduler } from './speech/scheduler.ts';
import { SpeechService } from './speech/speech-service.ts';
import { DEFAULT_WYOMING_LIMITS, WyomingServer, type WyomingLimits } from './wyoming/server.ts';
import { WyomingLink, type WyomingPayer } from './wyoming/link.ts';
import { VoiceLibrary } from './voices/library.ts';
import { VoicesDirWatch } from './voices/voices-dir-watch.ts';
import { VoiceInstalls } from './voices/install/voice-installs.ts';
import { BUILTIN_VOICES } from './voices/builtin.ts';
import { VoiceForge } from './forge/forge.ts';
import { SpeechAnalyzer } from './forge/forge-pool.ts';
import { DbVoiceStore } from './voices/owned-store.ts';
import { forgeRoutes } from './http/routes/forge.ts';
import { myVoiceRoutes } from './http/routes/my-voices.ts';
import { lexiconRoutes } from './http/routes/lexicons.ts';
import { phonemizeRoutes } from './http/routes/phonemize.ts';
import { LexiconService } from './lexicons/lexicon-service.ts';
import { LexiconStore } from './lexicons/lexicon-store.ts';
import { ThreadPlsReader } from './lexicons/pls-reader.ts';
import { LEXICON_LIMITS } from './schemas/lexicons.ts';
import { voicePreviewRoutes } from './http/routes/voice-preview.ts';
import { jobRoutes } from './http/routes/jobs.ts';
import { startJobs } from './jobs/start.ts';
import { voiceInstallRoutes } from './http/routes/voice-installs.ts';
import { advertiseKeepAlive, keepAliveHeldMs, readBeforeIdleClose } from './http/keep-alive.ts';
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
  /** The synthesis workers, already started (main.ts starts them first); started here when absent. */
  speechEngines?: SpeechEngines;
  /** Redis key prefix for this app (tests isolate themselves with one each); wins over ?prefix= in REDIS_URL. */
  redisPrefix?: string;
  /** Overrides of the Wyoming server's per-connection limits (tests shorten timeouts). */
  wyomingLimits?: Partial<WyomingLimits>;
}

const JSON_BODY_LIMIT = 64 * 1024;

/** Reported to Wyoming clients as the program's version. */
const SERVICE_VERSION = '0.1.0';

/** Trusts the nearest `hops` proxies (Fastify's types take a function for a hop count). */
function hopsTrusted(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

/**
 * VOICES_DIR kept current while the service runs (voices added or removed are served or gone within seconds),
 * and the installs the operator's page and VOICES_INSTALL start.
 */
function naturalVoiceServices(
  config: Readonly<Config>,
  app: FastifyInstance,
  library: VoiceLibrary,
  synthesizer: SpeechEngines['synthesizer'],
  neural: SpeechEngines['neural'],
  onModelsReplaced: () => void,
  shutdown: Shutdown,
) {
  const voicesDir = new VoicesDirWatch({ dir: config.voicesDir, library, synthesizer, log: app.log, initial: neural, onModelsReplaced });
  const voiceInstalls = new VoiceInstalls({
    voicesDir: config.voicesDir,
    sources: { catalogUrl: config.voicesCatalogUrl, kokoroFilesUrl: config.kokoroFilesUrl },
    log: app.log,
    refresh: () => voicesDir.refresh(),
    idleMs: config.voicesDownloadIdleSeconds * 1000,
  });
  if (config.defaultVoice && !library.catalogVoice(config.defaultVoice)) {
    app.log.warn(
      { defaultVoice: config.defaultVoice },
      `DEFAULT_VOICE ${config.defaultVoice} is not installed (yet): "default" speaks ${library.defaultVoice().id} until it is`,
    );
  }
  app.addHook('onListen', () => {
    voicesDir.start();
    // In the background: the service serves meanwhile, and each voice speaks as soon as it is in place.
    void voiceInstalls.installAtStart(config.voicesInstall);
  });
  shutdown.add('work', 'voice installs', () => voiceInstalls.close());
  shutdown.add('work', 'VOICES_DIR watch', () => voicesDir.close());
  return { voicesDir, voiceInstalls };
}

/** WYOMING_API_KEY's key: a wrong or revoked one stops the start like a bad setting. */
async function wyomingKey(apiKeys: ApiKeyService, key: string): Promise<WyomingPayer> {
  const principal = await apiKeys.authenticate(key);
  if (!principal) throw new Error('WYOMING_API_KEY is not a valid, unrevoked API key: create one in the dashboard and set it whole');
  if (!principal.scopes.includes('speech'))
    throw new Error(`WYOMING_API_KEY lacks the "speech" scope (it has: ${principal.scopes.join(', ')}): create a key that may speak`);
  return principal;
}

/** Builds every service once, from the configuration, choosing each swappable implementation here. */
async function buildServices(config: Readonly<Config>, app: FastifyInstance, options: AppOptions, shutdown: Shutdown): Promise<Services> {
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, pgSchema: options.pgSchema }, app.log);
  const { db } = store;
  // Ends the pool even of a node that never reached PostgreSQL (db.destroy alone would not).
  shutdown.add('database', 'database', () => store.close());
  const sharedState = options.sharedState ?? (await openSharedState(config.redisUrl, { redisPrefix: options.redisPrefix, log: app.log }));
  shutdown.add('connections', 'shared state', () => sharedState.close());
  const mailer =
    options.mailer ??
    (config.smtpUrl
      ? new (await import('./accounts/smtp-mailer.ts')).SmtpMailer(config.smtpUrl, config.mailFrom)
      : new OutboxMailer(join(config.dataDir, 'outbox'), config.mailFrom, (path, mail) => {
          // Local mode only (no SMTP_URL): the developer needs the link, and the log is where they look. It is a
          // field of its own, so the terminal format can print it alone on a line (and JSON keeps it unescaped).
          app.log.info({ link: mail.link }, `sign-in link for ${mail.to} (no SMTP_URL; saved to ${path})`);
        }));
  shutdown.add('connections', 'mailer', () => mailer.close());
  const { synthesizer, workers, neural } = options.speechEngines ?? (await startSpeechEngines(config));
  for (const p of neural.problems) app.log.warn({ path: p.path, reason: p.reason }, `VOICES_DIR: skipped ${p.path}: ${p.reason}`);
  if (neural.voices.length > 0)
    app.log.info({ voicesDir: config.voicesDir, voices: neural.voices.length }, `VOICES_DIR: ${neural.voices.length} neural voices loaded`);
  shutdown.add('workers', 'synthesis threads', () => synthesizer.close());
  const ownedVoices = new DbVoiceStore(db, store.dialect, {
    maxVoices: config.maxVoicesPerUser,
    maxSampleBytes: config.maxSampleBytesPerUser,
  });
  const voices = new VoiceLibrary(ownedVoices, BUILTIN_VOICES, { defaultVoice: config.defaultVoice });
  voices.setNaturalVoices(neural.voices);
  const cache = config.cacheMb > 0 ? new SpeechCache(config.cacheMb * 1024 * 1024) : null;
  const { voicesDir, voiceInstalls } = naturalVoiceServices(config, app, voices, synthesizer, neural, () => cache?.clear(), shutdown);
  const forgeAnalyzer = new SpeechAnalyzer();
  shutdown.add('workers', 'forge analysis threads', () => forgeAnalyzer.close());
  const magicLinks = new MagicLinkService(db, config.magicLinkTtlMs);
  const metrics = new Metrics();
  metrics.watchPool(() => synthesizer.stats());
  // As many slots as the pool runs at once: any more would queue inside piscina, out of the fair order.
  const scheduler = new FairScheduler({
    slots: workers * config.slotsPerWorker,
    maxPerKey: config.maxConcurrentPerKey,
    shared: sharedState,
  });
  metrics.watchScheduler(() => scheduler.stats());
  metrics.watchCache(() => cache?.stats() ?? null);
  const usage = new UsageService(db);
  const plsReader = new ThreadPlsReader();
  shutdown.add('workers', 'PLS reader thread', () => plsReader.close());
  const lexicons = new LexiconService(new LexiconStore(db, store.dialect, LEXICON_LIMITS.lexiconsPerAccount), plsReader);
  const speech = new SpeechService({
    synthesizer,
    voices,
    usage,
    metrics,
    lexicons,
    maxTextChars: config.maxTextChars,
    maxAudioSeconds: config.maxAudioSeconds,
    scheduler,
    cache,
  });
  const jobs = await startJobs({
    config,
    app,
    store,
    speech,
    sharedState,
    metrics,
    shutdown,
    workers,
    coreYield: synthesizer.coreYield,
    redisPrefix: options.redisPrefix,
  });
  const apiKeys = new ApiKeyService(db, store.dialect, sharedState);
  const wyomingLink = new WyomingLink(db, config.wyomingApiKey === null ? null : await wyomingKey(apiKeys, config.wyomingApiKey));
  return {
    db,
    shutdown,
    synthesizer,
    voices,
    ownedVoices,
    forge: new VoiceForge({ speech, library: voices, store: ownedVoices, analyzer: forgeAnalyzer }),
    sharedState,
    readiness: [
      { name: 'database', check: () => store.ping() },
      { name: 'engines', check: () => synthesizer.serving() },
      ...(sharedState.kind === 'memory' ? [] : [{ name: sharedState.kind, check: () => sharedState.ping() }]),
    ],
    mailer,
    users: new UserService(db),
    operators: new OperatorPolicy(db, config.adminEmails),
    magicLinks,
    signIn: new SignInService(magicLinks, mailer, config.publicUrl),
    sessions: new SessionService(db, config.sessionIdleMs, config.sessionMaxMs, sharedState),
    apiKeys,
    wyomingLink,
    usage,
    metrics,
    lexicons,
    speech,
    jobs,
    voicesDir,
    voiceInstalls,
  };
}

export async function buildApp(config: Readonly<Config>, options: AppOptions = {}): Promise<FastifyInstance> {
  const schemas = new SchemaCompilations();
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
    // Held longer than advertised (see keep-alive.ts), so a client near the advertised end never meets a closed socket.
    keepAliveTimeout: keepAliveHeldMs(config.keepAliveTimeoutMs),
    http: {
      // Checked in the errors plugin instead, so the 400 carries the envelope (Node's own is empty).
      requireHostHeader: false,
      headersTimeout: config.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(config.headersTimeoutMs / 4))),
    },
    // Strict types: "2" is not a number for speed, and so on; query strings are declared as strings. A schema that
    // refuses unknown fields refuses them (Fastify's default strips them silently); `verbose` gives the error
    // messages the schema, so they can list the accepted values and fields (http/validation-message.ts).
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, verbose: true } },
    schemaController: schemas.controller(),
  });

  // The doors close before Fastify stops HTTP and waits for the requests under way; the rest after.
  const shutdown = new Shutdown();
  app.addHook('preClose', () => shutdown.run('doors'));
  app.addHook('onClose', () => shutdown.run());
  let services: Services;
  try {
    services = await buildServices(config, app, options, shutdown);
  } catch (err) {
    // What was opened so far (workers, stores) is in the shutdown: a refused start (a bad WYOMING_API_KEY)
    // must not leave it running.
    await app.close();
    throw err;
  }
  app.decorate('config', config);
  app.decorate('services', services);
  if (config.wyomingPort !== null) {
    const { wyomingPort: port, wyomingHost: host } = config;
    const { speech, voices, wyomingLink: link } = services;
    const limits = { ...DEFAULT_WYOMING_LIMITS, maxAudioSeconds: config.maxAudioSeconds, ...options.wyomingLimits };
    const connectUrl = new URL('home-assistant', config.publicUrl.href.endsWith('/') ? config.publicUrl : `${config.publicUrl.href}/`).href;
    const wyoming = new WyomingServer({
      speech,
      voices,
      link,
      log: app.log,
      maxTextChars: config.maxTextChars,
      version: SERVICE_VERSION,
      connectUrl,
      limits,
    });
    services.wyoming = wyoming;
    app.addHook('onReady', async () => {
      await wyoming.start({ host, port });
    });
    shutdown.add('doors', 'Wyoming server', () => wyoming.close());
  }
  app.addHook('onSend', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  advertiseKeepAlive(app, config.keepAliveTimeoutMs);
  readBeforeIdleClose(app.server, app.log);
  // After start-up rather than during it (see VoiceLibrary.index and lazy-schemas.ts).
  app.addHook('onListen', () => {
    setImmediate(() => {
      app.services.voices.prepareSearch();
      schemas.compileWaiting();
    });
  });

  // First, so its onRequest hook marks an upgrade before any of ours can refuse it: only a marked upgrade's socket
  // is ended after the refusal (Node has handed that socket over and no longer closes it).
  await app.register(websocket, { options: websocketServerOptions });
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
  await app.register(speakWithTimestampsRoutes);
  await app.register(forgeRoutes);
  await app.register(myVoiceRoutes);
  await app.register(lexiconRoutes);
  await app.register(phonemizeRoutes);
  await app.register(voicePreviewRoutes);
  await app.register(voiceInstallRoutes);
  await app.register(openaiRoutes);
  await app.register(elevenLabsRoutes);
  await app.register(elevenLabsVoiceRoutes);
  await app.register(elevenLabsAccountRoutes);
  await app.register(usageRoutes);
  await app.register(jobRoutes);
  await app.register(wyomingRoutes);
  await app.register(sdkRoutes);
  await app.register(streamRoutes, { limits: options.streamLimits });
  await app.register(cartesiaRoutes, { limits: options.streamLimits });
  await app.register(deepgramSpeakRoutes, { limits: options.streamLimits });
  await app.register(elevenLabsStreamInputRoutes, { limits: options.streamLimits });
  return app;
}
