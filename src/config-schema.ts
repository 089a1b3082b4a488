import { resolve } from 'node:path';
import { Type, type TInteger } from '@sinclair/typebox';
import { DEFAULT_LOUDNESS_TARGET_LUFS } from './synth/voice-loudness.ts';
import { JOB_DEFAULTS } from './schemas/jobs.ts';
import { ConfigError } from './env-schema.ts';

// Every setting once: the variable it is read from (`env`), its type, default, bounds and meaning. The Config type
// and the parsing both come from here (env-schema.ts reads it); README.md's table lists the same variables.

/** Piper's published catalogue, release v1.0.0 of rhasspy/piper-voices (each file at its path relative to it). */
export const DEFAULT_VOICES_CATALOG_URL = 'https://huggingface.co/rhasspy/piper-voices/resolve/v1.0.0/voices.json';
/** The kokoro-onnx project's v1.0 model files release. */
export const DEFAULT_KOKORO_FILES_URL = 'https://github.com/thewh1teagle/kokoro-onnx/releases/download/model-files-v1.0/';

export const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;
export const WARM_UPS = ['full', 'minimal'] as const;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const MIB = 1024 * 1024;

const whole = (env: string, fallback: number, minimum: number, maximum: number, description: string) =>
  Type.Integer({ env, default: fallback, minimum, maximum, description });

/** A whole number given in one unit (minutes, MiB) and kept in another (ms, bytes). */
const scaled = (schema: TInteger, factor: number) =>
  Type.Transform(schema)
    .Decode((v) => v * factor)
    .Encode((v) => v / factor);

/** A whole number, or unset for null (the service then works it out). */
const wholeOrNull = (env: string, minimum: number, maximum: number, description: string) =>
  Type.Union([Type.Integer({ minimum, maximum }), Type.Null()], { env, default: null, description });

const text = (env: string, fallback: string, description: string) => Type.String({ env, default: fallback, description });
const textOrNull = (env: string, description: string) => Type.Union([Type.String(), Type.Null()], { env, default: null, description });

/** A directory, made absolute against the working directory at start. */
const directory = (env: string, fallback: string, description: string) =>
  Type.Transform(text(env, fallback, description))
    .Decode((p) => resolve(p))
    .Encode((p) => p);

function parseUrl(env: string, raw: string, protocols: readonly string[]): URL {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${env} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) throw new ConfigError(`${env} must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
  return parsed;
}

/** An address of one of `protocols`, kept as its normalized text; unset for null. */
const urlOrNull = (env: string, protocols: readonly string[], description: string) =>
  Type.Union(
    [
      Type.Transform(Type.String())
        .Decode((raw) => parseUrl(env, raw, protocols).toString())
        .Encode((s) => s),
      Type.Null(),
    ],
    { env, default: null, description },
  );

/** A base URL files are fetched relative to; a directory's must end in a slash or its last segment is replaced. */
const baseUrl = (env: string, fallback: string, isDirectory: boolean, description: string) =>
  Type.Transform(text(env, fallback, description))
    .Decode((raw) => {
      const parsed = parseUrl(env, raw, ['http:', 'https:', 'file:']);
      if (isDirectory && !parsed.pathname.endsWith('/')) parsed.pathname += '/';
      return parsed;
    })
    .Encode((u) => u.href);

/** A comma-separated list, each item matching `pattern`, duplicates dropped. */
const list = (env: string, pattern: string, what: string, description: string, normalize: (s: string) => string = (s) => s) =>
  Type.Transform(Type.Array(Type.String({ pattern }), { env, default: [], expects: `a comma-separated list of ${what}`, description }))
    .Decode((items) => [...new Set(items.map(normalize))])
    .Encode((items) => items);

/** One entry of ALLOWED_ORIGINS, kept as its canonical origin. */
function origin(entry: string): string {
  let parsed: URL;
  try {
    parsed = new URL(entry);
  } catch {
    throw new ConfigError(`ALLOWED_ORIGINS: "${entry}" is not an origin such as http://192.168.1.20:8080`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new ConfigError(`ALLOWED_ORIGINS: "${entry}" must use http or https`);
  if (parsed.pathname !== '/' || parsed.search || parsed.hash || parsed.username)
    throw new ConfigError(`ALLOWED_ORIGINS: "${entry}" must be an origin only (scheme, host and port), without a path`);
  return parsed.origin;
}

/** "off" for null, else a number of `schema`. */
const orOff = <T extends TInteger | ReturnType<typeof Type.Number>>(
  schema: T,
  env: string,
  fallback: number,
  description: string,
  expects?: string,
) =>
  Type.Transform(Type.Union([schema, Type.Literal('off')], { env, default: fallback, description, ...(expects ? { expects } : {}) }))
    .Decode((v) => (v === 'off' ? null : v))
    .Encode((v) => v ?? 'off');

const jobs = Type.Object({
  maxChars: whole('MAX_JOB_CHARS', JOB_DEFAULTS.maxJobChars, 1, 100_000_000, 'spoken characters one job may hold'),
  maxPerUser: whole(
    'MAX_JOBS_PER_USER',
    JOB_DEFAULTS.maxJobsPerUser,
    1,
    1_000_000,
    'jobs one account may have queued or running; the next is 429',
  ),
  retentionDays: whole(
    'JOB_RETENTION_DAYS',
    JOB_DEFAULTS.retentionDays,
    1,
    3650,
    'a finished job and its audio are deleted this long after',
  ),
  maxUploadBytes: scaled(
    whole('MAX_JOB_UPLOAD_MB', JOB_DEFAULTS.maxUploadMb, 1, 4096, 'the largest upload, and the most an EPUB may unpack to'),
    MIB,
  ),
  concurrency: wholeOrNull('JOB_CONCURRENCY', 1, 1024, 'pieces this node renders at once; unset: from the worker count'),
  lockMs: scaled(whole('JOB_LOCK_SECONDS', 30, 2, 3600, 'with several nodes, how soon a dead node’s pieces are taken over'), 1000),
  maxChapters: whole('MAX_JOB_CHAPTERS', JOB_DEFAULTS.maxChapters, 1, 100_000, 'chapters one job may hold'),
  maxPieces: whole('MAX_JOB_PIECES', JOB_DEFAULTS.maxPieces, 1, 1_000_000, 'pieces one job may be rendered in'),
  maxAudioSeconds: whole(
    'MAX_JOB_AUDIO_SECONDS',
    JOB_DEFAULTS.maxAudioSeconds,
    1,
    10_000_000,
    'audio one job may hold, refused before any work',
  ),
  maxStorageBytesPerUser: scaled(
    whole(
      'MAX_JOB_STORAGE_MB_PER_USER',
      JOB_DEFAULTS.maxStorageMbPerUser,
      1,
      100_000_000,
      'what an account’s jobs may hold in the database',
    ),
    MIB,
  ),
  documentReadMs: scaled(
    whole('DOCUMENT_READ_SECONDS', 60, 1, 3600, 'longest one document may take to read; past it 413, its thread freed'),
    1000,
  ),
  documentThreads: wholeOrNull('DOCUMENT_THREADS', 1, 64, 'threads that read documents; unset: half the cores, two at least'),
});

export const ConfigSchema = Type.Object({
  port: whole('PORT', 8080, 0, 65535, 'HTTP port'),
  host: text('HOST', '0.0.0.0', 'listen address'),
  dataDir: directory('DATA_DIR', './data', 'SQLite database, outbox, uploads'),
  voicesDir: directory('VOICES_DIR', './voices', 'Piper and Kokoro model files; missing = no neural voices'),
  voicesCatalogUrl: baseUrl(
    'VOICES_CATALOG_URL',
    DEFAULT_VOICES_CATALOG_URL,
    false,
    'the catalogue of installable voices (Piper’s voices.json)',
  ),
  kokoroFilesUrl: baseUrl('KOKORO_FILES_URL', DEFAULT_KOKORO_FILES_URL, true, 'where the Kokoro v1.0 release files are'),
  voicesInstall: list(
    'VOICES_INSTALL',
    '^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$',
    'voice names such as en_US-lessac-medium',
    'catalogue names installed at start when missing',
  ),
  voicesDownloadIdleSeconds: whole(
    'VOICES_DOWNLOAD_IDLE_SECONDS',
    45,
    1,
    3600,
    'a voice download whose source sends (next to) nothing this long fails',
  ),
  defaultVoice: textOrNull('DEFAULT_VOICE', 'what `default` speaks when installed; unset: the best natural English voice, else flite-slt'),
  adminEmails: list(
    'ADMIN_EMAILS',
    '^[^\\s@,]+@[^\\s@,]+$',
    'e-mail addresses',
    'accounts that operate the service besides the first',
    (e) => e.toLowerCase(),
  ),
  publicUrl: urlOrNull(
    'PUBLIC_URL',
    ['http:', 'https:'],
    'the address people open; unset: the service answers on whatever addresses it listens on',
  ),
  allowedOrigins: Type.Array(
    Type.Transform(Type.String())
      .Decode(origin)
      .Encode((s) => s),
    { env: 'ALLOWED_ORIGINS', default: [], description: 'further origins allowed for cookie-authenticated writes' },
  ),
  smtpUrl: urlOrNull('SMTP_URL', ['smtp:', 'smtps:'], 'sign-in mail over SMTP; unset: logged and kept in DATA_DIR/outbox/'),
  mailFrom: textOrNull('MAIL_FROM', 'the sender of sign-in mail; unset: no-reply at PUBLIC_URL’s host'),
  databaseUrl: urlOrNull('DATABASE_URL', ['postgres:', 'postgresql:'], 'PostgreSQL instead of SQLite'),
  redisUrl: urlOrNull('REDIS_URL', ['redis:', 'rediss:'], 'Redis shares limits and revocations between nodes'),
  rateLimitPerMinute: whole('RATE_LIMIT_PER_MINUTE', 60, 1, 1_000_000, '/v1/* requests per API key (per IP when unauthenticated)'),
  headersTimeoutMs: whole('HEADERS_TIMEOUT_MS', 10_000, 100, 600_000, 'all request headers must arrive within this'),
  requestTimeoutMs: whole('REQUEST_TIMEOUT_MS', 20_000, 100, 3_600_000, 'the whole request must arrive within this'),
  keepAliveTimeoutMs: whole('KEEP_ALIVE_TIMEOUT_MS', 10_000, 100, 600_000, 'an idle keep-alive connection is closed after this long'),
  authFailureLimitPerMinute: whole(
    'AUTH_FAILURE_LIMIT_PER_MINUTE',
    20,
    1,
    1_000_000,
    'failed authentications per client address and minute, then 429',
  ),
  loginRateLimitPerMinute: whole('LOGIN_RATE_LIMIT_PER_MINUTE', 10, 1, 1_000_000, 'sign-in requests per IP and minute'),
  loginAddressLimitPerHour: whole(
    'LOGIN_ADDRESS_LIMIT_PER_HOUR',
    5,
    1,
    1_000_000,
    'sign-in requests per e-mail address per hour, whoever asks',
  ),
  maxTextChars: whole('MAX_TEXT_CHARS', 10_000, 1, 1_000_000, 'longest text accepted for synthesis'),
  maxAudioSeconds: whole('MAX_AUDIO_SECONDS', 1800, 1, 86_400, 'longest audio one request may produce (then audio_too_long)'),
  maxVoicesPerUser: whole('MAX_VOICES_PER_USER', 100, 1, 1_000_000, 'voices one account may hold'),
  maxSampleBytesPerUser: whole(
    'MAX_SAMPLE_BYTES_PER_USER',
    200 * MIB,
    1,
    Number.MAX_SAFE_INTEGER,
    'bytes of clone samples one account may store',
  ),
  metricsToken: textOrNull('METRICS_TOKEN', 'guards /metrics; unset: loopback clients only'),
  magicLinkTtlMs: scaled(whole('MAGIC_LINK_TTL_MINUTES', 10, 1, 24 * 60, 'lifetime of a sign-in link'), MINUTE),
  sessionIdleMs: scaled(whole('SESSION_IDLE_DAYS', 7, 1, 365, 'session idle timeout'), DAY),
  sessionMaxMs: scaled(whole('SESSION_MAX_DAYS', 30, 1, 3650, 'session absolute lifetime'), DAY),
  trustProxy: Type.Union(
    [Type.Boolean(), Type.Integer({ minimum: 0 }), Type.Array(Type.String({ pattern: '^[0-9a-fA-F:.]+(/\\d{1,3})?$' }))],
    {
      env: 'TRUST_PROXY',
      default: false,
      expects: 'true, false, a hop count, or a comma-separated list of proxy addresses/CIDRs',
      description: 'Fastify’s trustProxy: which proxies may set X-Forwarded-For (client addresses for per-IP limits)',
    },
  ),
  workers: wholeOrNull('WORKERS', 1, 256, 'synthesis worker threads; unset: CPU count + 1'),
  // Minimal: only what the default voice needs before ready, the rest on first use (cheaper starts where CPU,
  // not the first request's latency, counts: small hosts, the tests' servers).
  warmUp: Type.Union(
    WARM_UPS.map((m) => Type.Literal(m)),
    {
      env: 'WARM_UP',
      default: 'full',
      description:
        'what each synthesis thread warms at start: `full` every engine and codec, `minimal` what the default voice needs (the rest on first use)',
    },
  ),
  // Workers x this is the fair queue's slot count. A slot held by a slow listener costs little: the worker renders
  // only a little ahead of it.
  slotsPerWorker: whole('SYNTHESIS_SLOTS_PER_WORKER', 32, 1, 1024, 'syntheses each worker interleaves'),
  maxConcurrentPerKey: whole(
    'MAX_CONCURRENT_PER_KEY',
    4,
    1,
    100_000,
    'syntheses one API key (or signed-in user) may run at once; the next gets 429',
  ),
  cacheMb: whole('CACHE_MB', 32, 0, 1_048_576, 'synthesis cache size in MiB (in memory, LRU); 0 turns it off'),
  loudnessTargetLufs: orOff(
    Type.Number({ minimum: -40, maximum: -5 }),
    'LOUDNESS_TARGET_LUFS',
    DEFAULT_LOUDNESS_TARGET_LUFS,
    'integrated loudness (LUFS, EBU R128) every voice is brought to; off keeps each engine’s own level',
  ),
  logLevel: Type.Union(
    LOG_LEVELS.map((l) => Type.Literal(l)),
    { env: 'LOG_LEVEL', default: 'info', description: 'pino log level' },
  ),
  logFormat: Type.Union(
    LOG_FORMATS.map((f) => Type.Literal(f)),
    {
      env: 'LOG_FORMAT',
      default: 'auto',
      description: '`pretty` lines for people, `json` lines for machines, `auto`: pretty only on a terminal',
    },
  ),
  // Off (null) with WYOMING_PORT=off; 0 picks a free port (tests).
  wyomingPort: orOff(
    Type.Integer({ minimum: 0, maximum: 65535 }),
    'WYOMING_PORT',
    10200,
    'TCP port of the Wyoming TTS server (Home Assistant); off turns it off',
    'a port number or off',
  ),
  // The protocol has no authentication: loopback unless the operator opens it on purpose.
  wyomingHost: text('WYOMING_HOST', '127.0.0.1', 'address the Wyoming server binds to'),
  wyomingApiKey: textOrNull('WYOMING_API_KEY', 'the API key Wyoming use is billed to; unset: the key connected on the dashboard'),
  jobs,
});
