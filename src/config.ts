import type { StaticDecode } from '@sinclair/typebox';
import { ConfigSchema, type LOG_FORMATS } from './config-schema.ts';
import { ConfigError, readEnv, variablesOf } from './env-schema.ts';

export { ConfigError } from './env-schema.ts';
export { DEFAULT_KOKORO_FILES_URL, DEFAULT_VOICES_CATALOG_URL, LOG_FORMATS } from './config-schema.ts';

type Settings = StaticDecode<typeof ConfigSchema>;

/** Typed, validated, frozen configuration read once from the environment (config-schema.ts says what each is). */
export type Config = Omit<Settings, 'publicUrl' | 'mailFrom' | 'allowedOrigins'> & {
  /** PUBLIC_URL, else http://localhost:$PORT. */
  publicUrl: URL;
  /** The origin cookie-authenticated writes must carry (besides allowedOrigins, and address origins). */
  publicOrigin: string;
  /**
   * PUBLIC_URL was set. Without it the service answers on whatever addresses it listens on: a write whose Origin
   * equals its own loopback or IP-literal Host is accepted, and sign-in links use the address signed in from.
   */
  publicUrlSet: boolean;
  allowedOrigins: readonly string[];
  secureCookies: boolean;
  mailFrom: string;
};

export type JobsConfig = Config['jobs'];
export type LogFormat = (typeof LOG_FORMATS)[number];

type Env = Record<string, string | undefined>;

/** Every environment variable the service reads. */
export const CONFIG_VARIABLES: readonly string[] = Object.freeze(variablesOf(ConfigSchema));

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const settings = readEnv(ConfigSchema, env);
  const publicUrl = settings.publicUrl === null ? new URL(`http://localhost:${settings.port}`) : new URL(settings.publicUrl);
  const config: Config = {
    ...settings,
    publicUrl,
    publicOrigin: publicUrl.origin,
    publicUrlSet: settings.publicUrl !== null,
    allowedOrigins: Object.freeze(settings.allowedOrigins),
    secureCookies: publicUrl.protocol === 'https:',
    mailFrom: settings.mailFrom ?? `Voxsmith <no-reply@${publicUrl.hostname}>`,
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
  return Object.freeze(config);
}
