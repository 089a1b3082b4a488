import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { DASHBOARD_DIST } from '../../src/http/routes/dashboard.ts';
import { freePort } from '../helpers/process.ts';
import { SmtpSink } from '../helpers/smtp-sink.ts';
import { chromiumAvailable, CHROMIUM_PATH } from './chromium.ts';

/** Why the Chromium tests cannot run here (no Chromium, or the dashboard not built), or false when they can. */
export function browserSkip(): string | false {
  if (!chromiumAvailable()) return `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium)`;
  return existsSync(join(DASHBOARD_DIST, 'index.html')) ? false : 'web/dist is not built (npm run build:web)';
}

export interface BrowserServer {
  app: FastifyInstance;
  dataDir: string;
  /** The real listening origin, which is also PUBLIC_URL: the browser's Origin header must equal it. */
  base: string;
  mail: SmtpSink;
  logs: string[];
  close(): Promise<void>;
}

/**
 * The service in this process on a port chosen before start, so PUBLIC_URL (and with it the origin that
 * cookie-authenticated writes must carry) is the address the browser really uses. Mail goes to a real
 * SMTP sink, as in production.
 */
export async function startBrowserServer(
  env: Record<string, string> = {},
  options: { listenHost?: string; appOptions?: AppOptions } = {},
): Promise<BrowserServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'voxsmith-browser-'));
  const mail = new SmtpSink();
  const smtpUrl = await mail.start();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logs.push(chunk.toString('utf8'));
      cb();
    },
  });
  const config = loadConfig({
    DATA_DIR: dataDir,
    // SMTP_URL: '' in `env` switches to the local outbox, as on a developer's machine.
    SMTP_URL: smtpUrl,
    MAIL_FROM: 'Voxsmith <noreply@voxsmith.test>',
    PUBLIC_URL: base,
    LOG_LEVEL: 'info',
    RATE_LIMIT_PER_MINUTE: '100000',
    LOGIN_RATE_LIMIT_PER_MINUTE: '100000',
    LOGIN_ADDRESS_LIMIT_PER_HOUR: '100000',
    WORKERS: '1',
    // Not Wyoming's default 10200: browser servers must not contend for it.
    WYOMING_PORT: 'off',
    ...env,
  });
  const app = await buildApp(config, { logStream, ...options.appOptions });
  // 0.0.0.0: also reachable on 127.0.0.2, a second address of this machine.
  await app.listen({ port, host: options.listenHost ?? '127.0.0.1' });
  return {
    app,
    dataDir,
    base,
    mail,
    logs,
    close: async () => {
      await app.close();
      await mail.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
