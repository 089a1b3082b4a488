// The service under test: `npm start`'s own script (scripts/start.mjs: the compiled dist/) in its own process with a fresh data folder, signed into the
// way a user would (magic link from the local outbox), with one API key for the load.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, START } from '../test/helpers/process.ts';
import { request } from './http-client.ts';
import { cpuSeconds } from './proc.ts';

export interface BenchService {
  pid: number;
  base: string;
  key: string;
  /** `key` first, then the other keys asked for (StartOptions.keys), each its own API key of the same user. */
  keys: string[];
  /** Seconds from spawn until /readyz answered 200 (engines loaded and warm in every worker). */
  startSeconds: number;
  stop(): Promise<void>;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const START_TIMEOUT_MS = 120_000;
const READY_POLL_MS = 10;
/** Quiet: the service used less than QUIET_CORES of a core over QUIET_WINDOW_MS (an idle service uses ~1 %). */
const QUIET_WINDOW_MS = 1_000;
const QUIET_CORES = 0.05;
// The bench chooses its own store, mailer and limits; inherited settings would change what is measured.
const CLEARED_ENV = ['DATABASE_URL', 'REDIS_URL', 'SMTP_URL', 'WORKERS', 'LOG_LEVEL', 'METRICS_TOKEN'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Keeps the last lines of the server's output for error messages, not the whole log of the run. */
function tail(child: ChildProcess, lines = 30): () => string {
  const kept: string[] = [];
  const take = (d: Buffer) => {
    kept.push(...d.toString().split('\n').filter(Boolean));
    if (kept.length > lines) kept.splice(0, kept.length - lines);
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  return () => kept.join('\n');
}

export interface StartOptions {
  /** Settings over the bench's own (e.g. the defaults of MAX_CONCURRENT_PER_KEY and CACHE_MB back). */
  env?: Record<string, string>;
  /** API keys to create (default 1). */
  keys?: number;
}

export async function startService(options: StartOptions = {}): Promise<BenchService> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const dataDir = await mkdtemp(join(tmpdir(), 'voxsmith-bench-'));
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CLEARED_ENV) delete env[name];
  const started = performance.now();
  const child = spawn(process.execPath, START.args, {
    cwd: ROOT,
    env: {
      ...env,
      ...START.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      // Not Wyoming's default 10200: a bench must not contend with a service running beside it.
      WYOMING_PORT: 'off',
      PUBLIC_URL: base,
      DATA_DIR: dataDir,
      RATE_LIMIT_PER_MINUTE: '1000000',
      // One key drives all the load, and repeated texts must be rendered each time to measure synthesis:
      // no per-key concurrency limit and no cache, unless a section asks for them (options.env).
      MAX_CONCURRENT_PER_KEY: '100000',
      CACHE_MB: '0',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = tail(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const fail = async (why: string): Promise<never> => {
    child.kill('SIGKILL');
    await exited;
    await rm(dataDir, { recursive: true, force: true });
    throw new Error(`${why}\n--- server output (last lines) ---\n${output()}`);
  };

  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) await fail(`the service exited with code ${child.exitCode} while starting`);
    if (Date.now() > deadline) await fail('the service was not ready within 2 minutes');
    const ready = await request(`${base}/readyz`).catch(() => null);
    if (ready?.status === 200) break;
    // Short, so the start time reads close to when the service was ready (a refused connect costs ~1 ms).
    await sleep(READY_POLL_MS);
  }
  const startSeconds = (performance.now() - started) / 1000;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      const forced = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(forced);
      await rm(dataDir, { recursive: true, force: true });
    })());
  try {
    const keys = await createKeys(base, dataDir, Math.max(1, options.keys ?? 1));
    return { pid: child.pid ?? 0, base, key: keys[0] as string, keys, startSeconds, stop };
  } catch (err) {
    return fail(`signing in failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The value of an unlabelled metric in /metrics' text (NaN when absent). */
export function metricValue(metrics: string, name: string): number {
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1] ?? Number.NaN);
}

/**
 * Resolves once every synthesis thread is warm and the service has gone quiet: it is ready, and answers, from
 * the first warm thread; the others warm up in turn, and then every thread loads and warms the engines the
 * default voice does not use (espeak: ~2 s of CPU each), in the background. A measurement started before
 * would time warm-ups, not requests.
 */
export async function allThreadsWarm(service: Pick<BenchService, 'base' | 'pid'>, timeoutMs = START_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const late = () => {
    if (Date.now() > deadline) throw new Error(`the service did not finish warming up within ${timeoutMs / 1000} s`);
  };
  for (;;) {
    const metrics = (await request(`${service.base}/metrics`, { keepBody: true })).text();
    const workers = metricValue(metrics, 'voxsmith_synthesis_workers');
    if (workers > 0 && metricValue(metrics, 'voxsmith_synthesis_workers_ready') === workers) break;
    late();
    await sleep(100);
  }
  for (;;) {
    const before = cpuSeconds(service.pid);
    await sleep(QUIET_WINDOW_MS);
    if (((cpuSeconds(service.pid) - before) * 1000) / QUIET_WINDOW_MS < QUIET_CORES) return;
    late();
  }
}

/** Magic link from the outbox (no SMTP_URL), verify, then keys made with the session cookie. */
async function createKeys(base: string, dataDir: string, count: number): Promise<string[]> {
  const email = 'bench@example.com';
  const json = { 'content-type': 'application/json' };
  const login = await request(`${base}/api/auth/login`, { method: 'POST', headers: json, body: JSON.stringify({ email }) });
  if (login.status !== 200) throw new Error(`login answered ${login.status}: ${login.text()}`);
  const outbox = join(dataDir, 'outbox');
  let token: string | undefined;
  for (let i = 0; i < 100 && !token; i++) {
    const files = await readdir(outbox).catch(() => [] as string[]);
    for (const f of files) {
      const match = /\/verify\?token=([A-Za-z0-9_-]+)/.exec(await readFile(join(outbox, f), 'utf8'));
      if (match) token = match[1];
    }
    if (!token) await sleep(50);
  }
  if (!token) throw new Error('no sign-in mail in the outbox');
  const verify = await request(`${base}/api/auth/verify`, { method: 'POST', headers: json, body: JSON.stringify({ token }) });
  const cookie = verify.headers['set-cookie']?.map((c) => c.split(';')[0]).join('; ');
  if (verify.status !== 200 || !cookie) throw new Error(`verify answered ${verify.status}: ${verify.text()}`);
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    const created = await request(`${base}/api/auth/api-keys`, {
      method: 'POST',
      headers: { ...json, cookie, origin: base },
      body: JSON.stringify({ name: i === 0 ? 'bench' : `bench-${i + 1}` }),
    });
    if (created.status !== 201) throw new Error(`key creation answered ${created.status}: ${created.text()}`);
    keys.push((JSON.parse(created.text()) as { key: string }).key);
  }
  return keys;
}
