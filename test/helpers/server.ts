import type { Socket } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { SmtpSink } from './smtp-sink.ts';
import {
  deleteRedisPrefix,
  dropSchema,
  randomPrefix,
  randomSchema,
  schemaText,
  TEST_PG_URL,
  TEST_REDIS_URL,
  testStore,
  testWithRedis,
} from './stores.ts';

/** How long a test server's close may take before its remaining connections are cut (see close()). */
const CLOSE_BOUND_MS = 20_000;

export interface TestServer {
  app: FastifyInstance;
  base: string;
  origin: string;
  dataDir: string;
  /** Which database this server uses: VOXSMITH_TEST_STORE=postgres runs the API suites on PostgreSQL. */
  store: 'sqlite' | 'postgres';
  mail: SmtpSink;
  logs: string[];
  /** fetch against the server with a JSON body and optional cookie/bearer. */
  request(path: string, init?: RequestOptions): Promise<Response>;
  /** Signs in through the real magic-link flow; returns the session cookie header value. */
  signIn(email: string): Promise<{ cookie: string; user: { id: string; email: string; plan: string } }>;
  /** Signs in and creates an API key. */
  newKey(email: string, name?: string): Promise<{ key: string; id: string; cookie: string }>;
  /** Everything the database holds, as text (SQLite files or PostgreSQL rows), for "no secret stored" checks. */
  storedText(): Promise<string>;
  close(): Promise<void>;
}

export interface RequestOptions {
  method?: string;
  json?: unknown;
  body?: RequestInit['body'];
  headers?: Record<string, string>;
  cookie?: string;
  bearer?: string;
  /** Adds the service's own Origin (what a browser on the dashboard sends). */
  sameOrigin?: boolean;
}

export interface StartOptions extends AppOptions {
  env?: Record<string, string>;
  dataDir?: string;
  /** Where to listen; 127.0.0.1 by default (0.0.0.0: reachable on 127.0.0.2 too, as on a second address). */
  listenHost?: string;
}

/**
 * A test server's synthesis pool: one thread that warms only the default voice. Threads warming every engine
 * were most of the suite's CPU (seconds each, ~120 servers). A test of how threads share work or of a warm
 * start sets WORKERS (or WARM_UP=full) in its env, which goes over these.
 */
export const TEST_POOL: Readonly<Record<string, string>> = { WORKERS: '1', WARM_UP: 'minimal' };

/**
 * Waits until every readiness check has settled (passed or failed). A test that called /readyz does this
 * before closing the server, so no check is left waiting on a part that closing shuts down (engines
 * warming up when the server closes would otherwise keep the test process alive).
 */
export async function settleReadiness(s: TestServer): Promise<void> {
  await Promise.all(s.app.services.readiness.map((c) => c.check().catch(() => {})));
}

export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'voxsmith-test-'));
  const mail = new SmtpSink();
  const smtpUrl = await mail.start();
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logs.push(chunk.toString('utf8'));
      cb();
    },
  });
  // PUBLIC_URL must be known before listening; reserve the port by listening first on 0 is not possible with
  // a fixed config, so the origin check uses a fixed public URL that tests send as Origin.
  const publicUrl = 'http://voxsmith.test';
  // PostgreSQL mode: a fresh schema per server, dropped on close (unless the test chose its own database).
  const pgSchema = testStore === 'postgres' && !options.env?.DATABASE_URL ? (options.pgSchema ?? randomSchema('api')) : undefined;
  const redisPrefix =
    testWithRedis && !options.env?.REDIS_URL && !options.sharedState ? (options.redisPrefix ?? randomPrefix('api')) : undefined;
  const config = loadConfig({
    ...(pgSchema ? { DATABASE_URL: TEST_PG_URL } : {}),
    ...(redisPrefix ? { REDIS_URL: TEST_REDIS_URL } : {}),
    DATA_DIR: dataDir,
    // Hermetic: an operator's ./voices models must not change what the suites see; neural tests pass their own.
    VOICES_DIR: join(dataDir, 'voices'),
    SMTP_URL: smtpUrl,
    MAIL_FROM: 'Voxsmith <noreply@voxsmith.test>',
    PUBLIC_URL: publicUrl,
    LOG_LEVEL: 'info',
    // Generous limits so suites that sign in often are not throttled; the rate-limit tests set their own.
    RATE_LIMIT_PER_MINUTE: '100000',
    LOGIN_RATE_LIMIT_PER_MINUTE: '100000',
    LOGIN_ADDRESS_LIMIT_PER_HOUR: '100000',
    AUTH_FAILURE_LIMIT_PER_MINUTE: '100000',
    // Wyoming is on by default at 10200: servers of parallel tests must not contend for it (its tests pass 0).
    WYOMING_PORT: 'off',
    ...TEST_POOL,
    ...options.env,
  });
  let app: Awaited<ReturnType<typeof buildApp>>;
  try {
    app = await buildApp(config, { logStream, ...options, ...(pgSchema ? { pgSchema } : {}), ...(redisPrefix ? { redisPrefix } : {}) });
  } catch (err) {
    // A refused start (e.g. a bad WYOMING_API_KEY) must not leave the mail sink listening: the test process would never exit.
    await mail.stop();
    throw err;
  }
  // Every socket the server accepts, upgraded WebSockets included (Node's own list forgets those), for close()'s bound.
  const sockets = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  try {
    await app.listen({ port: 0, host: options.listenHost ?? '127.0.0.1' });
  } catch (err) {
    await app.close();
    await mail.stop();
    throw err;
  }
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

  const request = (path: string, init: RequestOptions = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    if (init.cookie) headers.cookie = init.cookie;
    if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
    if (init.sameOrigin) headers.origin = config.publicOrigin;
    return fetch(base + path, {
      method: init.method ?? (init.json !== undefined || init.body !== undefined ? 'POST' : 'GET'),
      headers,
      body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
    });
  };

  const signIn = async (email: string) => {
    const before = mail.messages.length;
    const login = await request('/api/auth/login', { json: { email } });
    if (login.status !== 200) throw new Error(`login failed: ${login.status} ${await login.text()}`);
    const token = await mail.tokenFor(email, before);
    const verify = await request('/api/auth/verify', { json: { token } });
    if (verify.status !== 200) throw new Error(`verify failed: ${verify.status} ${await verify.text()}`);
    const setCookie = verify.headers.getSetCookie().find((c) => c.startsWith('vox_session='));
    if (!setCookie) throw new Error('no session cookie');
    const body = (await verify.json()) as { user: { id: string; email: string; plan: string } };
    return { cookie: setCookie.split(';')[0], user: body.user };
  };

  const newKey = async (email: string, name = 'test') => {
    const { cookie } = await signIn(email);
    const res = await request('/api/auth/api-keys', { json: { name }, cookie, sameOrigin: true });
    if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${await res.text()}`);
    const body = (await res.json()) as { key: string; id: string };
    return { key: body.key, id: body.id, cookie };
  };

  return {
    app,
    base,
    origin: config.publicOrigin,
    dataDir,
    store: config.databaseUrl ? 'postgres' : 'sqlite',
    mail,
    logs,
    request,
    signIn,
    newKey,
    storedText: async () => {
      const schema = pgSchema ?? options.pgSchema;
      if (config.databaseUrl && schema) return schemaText(schema);
      return readdirSync(dataDir)
        .filter((f) => f.startsWith('voxsmith.db'))
        .map((f) => readFileSync(join(dataDir, f)).toString('latin1'))
        .join('');
    },
    close: async () => {
      // A connection the server's own close leaves open would hold this test file for ever (CI's limit, not a
      // failure, would end it): after a bound it is cut so the file ends, and the close fails, for that is a leak.
      let cut: number | null = null;
      const bound = setTimeout(() => {
        cut = sockets.size;
        process.stderr.write(`# LEAK: test server ${base} still closing after ${CLOSE_BOUND_MS / 1000} s; cutting ${cut} connections\n`);
        for (const socket of sockets) socket.destroy();
      }, CLOSE_BOUND_MS);
      await app.close().finally(() => clearTimeout(bound));
      await mail.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      if (pgSchema && !options.pgSchema) await dropSchema(pgSchema);
      if (redisPrefix && !options.redisPrefix) await deleteRedisPrefix(redisPrefix);
      if (cut !== null)
        throw new Error(`the server's close left ${cut} connections open for ${CLOSE_BOUND_MS / 1000} s (cut by the test server)`);
    },
  };
}
