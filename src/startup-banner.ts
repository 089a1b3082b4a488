import { join } from 'node:path';
import type { Config } from './config.ts';
import { naturalVoicesRow } from './natural-voices-banner.ts';
import { httpUrl, reachableAddresses } from './net-addresses.ts';
import type { WyomingState } from './wyoming/server.ts';

/** What a person starting the service needs first: where to open it, where its data is, where sign-in links go. */
export interface StartupFacts {
  url: string;
  /** Every address the dashboard works on (the first is `url`): PUBLIC_URL, or localhost and the host's own IPs. */
  addresses: string[];
  /** Where Home Assistant connects (`host:port`), or why not. */
  wyoming: string;
  docs: string;
  dataDir: string;
  database: 'sqlite' | 'postgres';
  mail: 'smtp' | 'outbox';
  /** Local mail mode only: the folder sign-in mails are written to. */
  outbox?: string;
  /** Natural (neural) voices loaded from VOICES_DIR; set once the app is built. */
  naturalVoices?: number;
  /** The voices VOICES_INSTALL downloads in the background from this start. */
  voicesInstalling?: readonly string[];
}

/**
 * Where the dashboard works: PUBLIC_URL when set (the only origin it then accepts besides ALLOWED_ORIGINS);
 * otherwise localhost and every IP address of the host the listener covers, each accepted as its own origin.
 */
function openAddresses(config: Readonly<Config>, port: number): string[] {
  if (config.publicUrlSet) return [config.publicUrl.href.replace(/\/$/, '')];
  const ips = reachableAddresses(config.host);
  const local = ips.some((ip) => ip === '127.0.0.1' || ip === '::1') ? [httpUrl('localhost', port)] : [];
  return [...new Set([...local, ...ips.map((ip) => httpUrl(ip, port))])];
}

function wyomingLine(config: Readonly<Config>, state: WyomingState | undefined): string {
  if (config.wyomingPort === null || !state || state.status === 'stopped') return 'off (WYOMING_PORT=off)';
  if (state.status === 'unavailable') return `not on this node: ${state.host}:${state.port} ${state.reason} (WYOMING_PORT)`;
  const billed = config.wyomingApiKey ? 'billed to WYOMING_API_KEY' : 'connect it to a key on the dashboard’s Home Assistant page';
  return `${state.host}:${state.port} for Home Assistant (${billed})`;
}

/**
 * No secret ever: database, Redis and SMTP URLs carry passwords, so only their kind is named. `port`: the one
 * the HTTP server listens on (PORT may be 0); `wyoming`: where the Wyoming server got to.
 */
export function startupFacts(config: Readonly<Config>, port = config.port, wyoming?: WyomingState): StartupFacts {
  const addresses = openAddresses(config, port);
  const url = addresses[0];
  return {
    url,
    addresses,
    wyoming: wyomingLine(config, wyoming),
    docs: `${url}/docs`,
    dataDir: config.dataDir,
    database: config.databaseUrl ? 'postgres' : 'sqlite',
    mail: config.smtpUrl ? 'smtp' : 'outbox',
    ...(config.smtpUrl ? {} : { outbox: join(config.dataDir, 'outbox') }),
  };
}

/** The banner for a terminal, a block of aligned lines. */
export function startupBanner(facts: StartupFacts): string {
  const rows: [string, string][] = [
    ['Open', facts.url],
    // The other addresses the dashboard works on, one per line under the first.
    ...facts.addresses.slice(1).map((a): [string, string] => ['', a]),
    ['API docs', facts.docs],
    ['Data', facts.database === 'sqlite' ? `${facts.dataDir} (SQLite)` : `${facts.dataDir} (database: PostgreSQL, DATABASE_URL)`],
    [
      'Sign-in',
      facts.outbox
        ? `no SMTP_URL: sign-in links are printed below and saved to ${facts.outbox}/`
        : 'sign-in links are mailed over SMTP (SMTP_URL)',
    ],
    ...(facts.naturalVoices !== undefined ? [naturalVoicesRow(facts.naturalVoices, facts.voicesInstalling)] : []),
    ['Wyoming', facts.wyoming],
    ['Stop', 'Ctrl+C'],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return ['', '  Voxsmith is running.', '', ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`), '', ''].join('\n');
}
