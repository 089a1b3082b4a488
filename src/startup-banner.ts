import { join } from 'node:path';
import type { Config } from './config.ts';
import { naturalVoicesRow } from './natural-voices-banner.ts';

/** What a person starting the service needs first: where to open it, where its data is, where sign-in links go. */
export interface StartupFacts {
  url: string;
  docs: string;
  dataDir: string;
  database: 'sqlite' | 'postgres';
  mail: 'smtp' | 'outbox';
  /** Local mail mode only: the folder sign-in mails are written to. */
  outbox?: string;
  /** Natural (neural) voices loaded from VOICES_DIR; set once the app is built. */
  naturalVoices?: number;
}

/** No secret ever: database, Redis and SMTP URLs carry passwords, so only their kind is named. */
export function startupFacts(config: Readonly<Config>): StartupFacts {
  const url = config.publicUrl.href.replace(/\/$/, '');
  return {
    url,
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
    ['API docs', facts.docs],
    ['Data', facts.database === 'sqlite' ? `${facts.dataDir} (SQLite)` : `${facts.dataDir} (database: PostgreSQL, DATABASE_URL)`],
    [
      'Sign-in',
      facts.outbox
        ? `no SMTP_URL: sign-in links are printed below and saved to ${facts.outbox}/`
        : 'sign-in links are mailed over SMTP (SMTP_URL)',
    ],
    ...(facts.naturalVoices !== undefined ? [naturalVoicesRow(facts.naturalVoices)] : []),
    ['Stop', 'Ctrl+C'],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return ['', '  Voxsmith is running.', '', ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`), '', ''].join('\n');
}
