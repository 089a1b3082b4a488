import { resolve } from 'node:path';
import { DEFAULT_LOUDNESS_TARGET_LUFS } from './synth/voice-loudness.ts';
import { JOB_DEFAULTS } from './schemas/jobs.ts';

/** Typed, validated, frozen configuration read once from the environment. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Piper and Kokoro model files (VOICES_DIR, default ./voices); missing = no neural voices. */
  voicesDir: string;
  /** The catalogue of installable voices (VOICES_CATALOG_URL: Piper's voices.json; its files relative to it). */
  voicesCatalogUrl: URL;
  /** Where the Kokoro v1.0 release files are (KOKORO_FILES_URL). */
  kokoroFilesUrl: URL;
  /** VOICES_INSTALL: catalogue names installed at start when missing. */
  voicesInstall: string[];
  /** VOICES_DOWNLOAD_IDLE_SECONDS: a voice download whose source sends (next to) nothing this long fails. */
  voicesDownloadIdleSeconds: number;
  /** DEFAULT_VOICE: what `default` speaks when installed; null = the best natural English voice, else flite-slt. */
  defaultVoice: string | null;
  /** ADMIN_EMAILS: accounts that operate the service (install voices), besides the first account. */
  adminEmails: string[];
  publicUrl: URL;
  /** The origin cookie-authenticated writes must carry (besides allowedOrigins, and address origins, below). */
  publicOrigin: string;
  /**
   * PUBLIC_URL was set. Without it the service answers on whatever addresses it listens on: a write whose Origin
   * equals its own loopback or IP-literal Host is accepted, and sign-in links use the address signed in from.
   */
  publicUrlSet: boolean;
  /** ALLOWED_ORIGINS: further origins allowed for cookie-authenticated writes (a dev server, a second name). */
  allowedOrigins: readonly string[];
  secureCookies: boolean;
  smtpUrl: string | null;
  mailFrom: string;
  databaseUrl: string | null;
  redisUrl: string | null;
  rateLimitPerMinute: number;
  /** Slow-client bounds: all request headers within headersTimeoutMs, the whole request within requestTimeoutMs. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
  /** Failed authentications (bad or unknown key, stale session) per client address and minute, then 429. */
  authFailureLimitPerMinute: number;
  loginRateLimitPerMinute: number;
  /** Sign-in requests per e-mail address per hour, whoever asks. */
  loginAddressLimitPerHour: number;
  maxTextChars: number;
  /** Longest audio one request may produce; synthesis stops there with an audio_too_long error. */
  maxAudioSeconds: number;
  /** Per-account forge quotas: voices held, and bytes of stored clone samples. */
  maxVoicesPerUser: number;
  maxSampleBytesPerUser: number;
  metricsToken: string | null;
  magicLinkTtlMs: number;
  sessionIdleMs: number;
  sessionMaxMs: number;
  workers: number | null;
  /**
   * Syntheses each worker interleaves (SYNTHESIS_SLOTS_PER_WORKER); workers x this is the fair queue's slot
   * count. A slot held by a slow listener costs little: the worker renders at most ~2 s ahead of it.
   */
  slotsPerWorker: number;
  /** Syntheses one API key (or signed-in user) may run at once on this node; the next gets 429. */
  maxConcurrentPerKey: number;
  /** Synthesis cache size in MiB (in memory, LRU); 0 turns it off. */
  cacheMb: number;
  /** Integrated loudness (LUFS, EBU R128) every voice is brought to; null keeps each engine's own level. */
  loudnessTargetLufs: number | null;
  /** Fastify's trustProxy: which proxies may set X-Forwarded-For (client addresses for per-IP limits). */
  trustProxy: boolean | number | string[];
  logLevel: string;
  /**
   * Wyoming TTS server (Home Assistant): on by default at 127.0.0.1:10200, off when wyomingPort is null
   * (WYOMING_PORT=off). Billed to the key connected on the dashboard, or to wyomingApiKey when that is set.
   */
  wyomingPort: number | null;
  wyomingHost: string;
  wyomingApiKey: string | null;
  /** LOG_FORMAT: `pretty` lines for people, `json` lines for machines, `auto` = pretty only on a terminal. */
  logFormat: LogFormat;
  /** Long-form jobs (books): their limits and how many pieces this node renders at once. */
  jobs: JobsConfig;
}

export interface JobsConfig {
  /** MAX_JOB_CHARS: spoken characters one job may hold. */
  maxChars: number;
  /** MAX_JOBS_PER_USER: jobs one account may have queued or running; the next is refused with 429. */
  maxPerUser: number;
  /** JOB_RETENTION_DAYS: a finished job (and its audio) is deleted this long after it finished. */
  retentionDays: number;
  /** MAX_JOB_UPLOAD_MB: the largest upload, and the most an EPUB may unpack to. */
  maxUploadBytes: number;
  /** JOB_CONCURRENCY: pieces this node renders at once; null = from the worker count. */
  concurrency: number | null;
  /** JOB_LOCK_SECONDS: with several nodes, how soon the pieces a dead node was rendering are taken over. */
  lockMs: number;
  /** MAX_JOB_CHAPTERS: chapters one job may hold (refused while the document is read). */
  maxChapters: number;
  /** MAX_JOB_PIECES: pieces one job may be rendered in. */
  maxPieces: number;
  /** MAX_JOB_AUDIO_SECONDS: audio one job may hold (breaks and expansions included), refused before any work. */
  maxAudioSeconds: number;
  /** MAX_JOB_STORAGE_MB_PER_USER: bytes an account's jobs may hold in the database before a new one is refused. */
  maxStorageBytesPerUser: number;
}

export const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function decimalNumber(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^-?\d+(\.\d+)?$/.test(raw.trim())) throw new ConfigError(`${name} must be a number or off, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function url(env: Env, name: string, protocols: string[]): URL | null {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
  }
  return parsed;
}

/** ALLOWED_ORIGINS: comma-separated http(s) origins, each kept as its canonical origin string. */
function allowedOrigins(env: Env): string[] {
  const raw = env.ALLOWED_ORIGINS?.trim();
  if (!raw) return [];
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      let parsed: URL;
      try {
        parsed = new URL(entry);
      } catch {
        throw new ConfigError(`ALLOWED_ORIGINS: "${entry}" is not an origin such as http://192.168.1.20:8080`);
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
        throw new ConfigError(`ALLOWED_ORIGINS: "${entry}" must use http or https`);
      if (parsed.pathname !== '/' || parsed.search || parsed.hash || parsed.username) {
        throw new ConfigError(`ALLOWED_ORIGINS: "${entry}" must be an origin only (scheme, host and port), without a path`);
      }
      return parsed.origin;
    });
}

/** WYOMING_PORT: 10200 unless set; `off` turns the Wyoming server off; 0 picks a free port (tests). */
function wyomingPort(env: Env): number | null {
  const raw = env.WYOMING_PORT?.trim();
  if (raw === 'off') return null;
  if (raw !== undefined && raw !== '' && !/^\d+$/.test(raw))
    throw new ConfigError(`WYOMING_PORT must be a port number or off, got "${raw}"`);
  return int(env, 'WYOMING_PORT', 10200, 0, 65535);
}

function trustProxy(env: Env): boolean | number | string[] {
  const raw = env.TRUST_PROXY?.trim();
  if (!raw || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const list = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (list.some((a) => !/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(a))) {
    throw new ConfigError('TRUST_PROXY must be true, false, a hop count, or a comma-separated list of proxy addresses/CIDRs');
  }
  return list;
}

function logFormat(env: Env): LogFormat {
  const raw = env.LOG_FORMAT?.trim() || 'auto';
  const format = LOG_FORMATS.find((f) => f === raw);
  if (!format) throw new ConfigError(`LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')}, got "${raw}"`);
  return format;
}

function jobsConfig(env: Env): JobsConfig {
  const concurrency = env.JOB_CONCURRENCY?.trim();
  return {
    maxChars: int(env, 'MAX_JOB_CHARS', JOB_DEFAULTS.maxJobChars, 1, 100_000_000),
    maxPerUser: int(env, 'MAX_JOBS_PER_USER', JOB_DEFAULTS.maxJobsPerUser, 1, 1_000_000),
    retentionDays: int(env, 'JOB_RETENTION_DAYS', JOB_DEFAULTS.retentionDays, 1, 3650),
    maxUploadBytes: int(env, 'MAX_JOB_UPLOAD_MB', JOB_DEFAULTS.maxUploadMb, 1, 4096) * 1024 * 1024,
    concurrency: concurrency ? int(env, 'JOB_CONCURRENCY', 1, 1, 1024) : null,
    lockMs: int(env, 'JOB_LOCK_SECONDS', 30, 2, 3600) * 1000,
    maxChapters: int(env, 'MAX_JOB_CHAPTERS', JOB_DEFAULTS.maxChapters, 1, 100_000),
    maxPieces: int(env, 'MAX_JOB_PIECES', JOB_DEFAULTS.maxPieces, 1, 1_000_000),
    maxAudioSeconds: int(env, 'MAX_JOB_AUDIO_SECONDS', JOB_DEFAULTS.maxAudioSeconds, 1, 10_000_000),
    maxStorageBytesPerUser: int(env, 'MAX_JOB_STORAGE_MB_PER_USER', JOB_DEFAULTS.maxStorageMbPerUser, 1, 100_000_000) * 1024 * 1024,
  };
}

/** Piper's published catalogue, release v1.0.0 of rhasspy/piper-voices (each file at its path relative to it). */
export const DEFAULT_VOICES_CATALOG_URL = 'https://huggingface.co/rhasspy/piper-voices/resolve/v1.0.0/voices.json';
/** The kokoro-onnx project's v1.0 model files release. */
export const DEFAULT_KOKORO_FILES_URL = 'https://github.com/thewh1teagle/kokoro-onnx/releases/download/model-files-v1.0/';

function list(env: Env, name: string, pattern: RegExp, what: string): string[] {
  const items = (env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = items.find((s) => !pattern.test(s));
  if (bad !== undefined) throw new ConfigError(`${name} must be a comma-separated list of ${what}, got "${bad}"`);
  return [...new Set(items)];
}

function baseUrl(env: Env, name: string, fallback: string, directory: boolean): URL {
  const parsed = url(env, name, ['http:', 'https:', 'file:']) ?? new URL(fallback);
  // A base for relative file names must end in a slash, or its last segment would be replaced.
  if (directory && !parsed.pathname.endsWith('/')) parsed.pathname += '/';
  return parsed;
}

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST?.trim() || '0.0.0.0';
  const givenPublicUrl = url(env, 'PUBLIC_URL', ['http:', 'https:']);
  const publicUrl = givenPublicUrl ?? new URL(`http://localhost:${port}`);
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  const smtpUrl = url(env, 'SMTP_URL', ['smtp:', 'smtps:']);
  const workersRaw = env.WORKERS;
  const config: Config = {
    port,
    host,
    dataDir: resolve(env.DATA_DIR?.trim() || './data'),
    voicesDir: resolve(env.VOICES_DIR?.trim() || './voices'),
    voicesCatalogUrl: baseUrl(env, 'VOICES_CATALOG_URL', DEFAULT_VOICES_CATALOG_URL, false),
    kokoroFilesUrl: baseUrl(env, 'KOKORO_FILES_URL', DEFAULT_KOKORO_FILES_URL, true),
    voicesInstall: list(env, 'VOICES_INSTALL', /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/, 'voice names such as en_US-lessac-medium'),
    voicesDownloadIdleSeconds: int(env, 'VOICES_DOWNLOAD_IDLE_SECONDS', 45, 1, 3600),
    defaultVoice: env.DEFAULT_VOICE?.trim() || null,
    adminEmails: list(env, 'ADMIN_EMAILS', /^[^\s@,]+@[^\s@,]+$/, 'e-mail addresses').map((e) => e.toLowerCase()),
    publicUrl,
    publicOrigin: publicUrl.origin,
    publicUrlSet: givenPublicUrl !== null,
    allowedOrigins: Object.freeze(allowedOrigins(env)),
    secureCookies: publicUrl.protocol === 'https:',
    smtpUrl: smtpUrl ? smtpUrl.toString() : null,
    mailFrom: env.MAIL_FROM?.trim() || `Voxsmith <no-reply@${publicUrl.hostname}>`,
    databaseUrl: databaseUrl ? databaseUrl.toString() : null,
    redisUrl: redisUrl ? redisUrl.toString() : null,
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 60, 1, 1_000_000),
    headersTimeoutMs: int(env, 'HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 20_000, 100, 3_600_000),
    keepAliveTimeoutMs: int(env, 'KEEP_ALIVE_TIMEOUT_MS', 10_000, 100, 600_000),
    authFailureLimitPerMinute: int(env, 'AUTH_FAILURE_LIMIT_PER_MINUTE', 20, 1, 1_000_000),
    loginRateLimitPerMinute: int(env, 'LOGIN_RATE_LIMIT_PER_MINUTE', 10, 1, 1_000_000),
    loginAddressLimitPerHour: int(env, 'LOGIN_ADDRESS_LIMIT_PER_HOUR', 5, 1, 1_000_000),
    maxTextChars: int(env, 'MAX_TEXT_CHARS', 10_000, 1, 1_000_000),
    maxAudioSeconds: int(env, 'MAX_AUDIO_SECONDS', 1800, 1, 86_400),
    maxVoicesPerUser: int(env, 'MAX_VOICES_PER_USER', 100, 1, 1_000_000),
    maxSampleBytesPerUser: int(env, 'MAX_SAMPLE_BYTES_PER_USER', 200 * 1024 * 1024, 1, Number.MAX_SAFE_INTEGER),
    metricsToken: env.METRICS_TOKEN?.trim() || null,
    magicLinkTtlMs: int(env, 'MAGIC_LINK_TTL_MINUTES', 10, 1, 24 * 60) * MINUTE,
    sessionIdleMs: int(env, 'SESSION_IDLE_DAYS', 7, 1, 365) * DAY,
    sessionMaxMs: int(env, 'SESSION_MAX_DAYS', 30, 1, 3650) * DAY,
    trustProxy: trustProxy(env),
    workers: workersRaw === undefined || workersRaw.trim() === '' ? null : int(env, 'WORKERS', 1, 1, 256),
    slotsPerWorker: int(env, 'SYNTHESIS_SLOTS_PER_WORKER', 32, 1, 1024),
    maxConcurrentPerKey: int(env, 'MAX_CONCURRENT_PER_KEY', 4, 1, 100_000),
    cacheMb: int(env, 'CACHE_MB', 32, 0, 1_048_576),
    loudnessTargetLufs:
      env.LOUDNESS_TARGET_LUFS?.trim() === 'off' ? null : decimalNumber(env, 'LOUDNESS_TARGET_LUFS', DEFAULT_LOUDNESS_TARGET_LUFS, -40, -5),
    logLevel: env.LOG_LEVEL?.trim() || 'info',
    logFormat: logFormat(env),
    wyomingPort: wyomingPort(env),
    // The protocol has no authentication: loopback unless the operator opens it on purpose.
    wyomingHost: env.WYOMING_HOST?.trim() || '127.0.0.1',
    wyomingApiKey: env.WYOMING_API_KEY?.trim() || null,
    jobs: jobsConfig(env),
  };
  if (config.wyomingApiKey !== null && config.wyomingPort === null) {
    throw new ConfigError('WYOMING_API_KEY is set but WYOMING_PORT is off: unset one or the other');
  }
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    throw new ConfigError('HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS');
  }
  if (config.sessionIdleMs > config.sessionMaxMs) {
    throw new ConfigError('SESSION_IDLE_DAYS must not exceed SESSION_MAX_DAYS');
  }
  const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
  if (!levels.includes(config.logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${levels.join(', ')}`);
  return Object.freeze(config);
}
