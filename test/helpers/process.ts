import { readFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A free loopback port (the OS picks one, we release it and hand it to the child). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface ServiceProcess {
  child: ChildProcess;
  base: string;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * How the process is started: the sources through tsx (what the tests test), or `npm start`'s own script
 * (scripts/start.mjs: the compiled dist/, rebuilt first if src/ changed).
 */
export type Entry = 'sources' | 'npm-start';

/**
 * How `npm start` runs node, as package.json's start script gives it (environment settings, Node options,
 * then scripts/start.mjs): whatever starts the service the way users do reads it from there.
 */
export const START: { env: Readonly<Record<string, string>>; args: readonly string[] } = (() => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
  const words = pkg.scripts.start.split(/\s+/);
  const env: Record<string, string> = {};
  while (/^[A-Z_]+=\S*$/.test(words[0] ?? '')) {
    const [name, value] = (words.shift() as string).split('=');
    env[name] = value;
  }
  const [command, ...args] = words;
  if (command !== 'node' || args.at(-1) !== 'scripts/start.mjs') throw new Error(`unexpected start script: ${pkg.scripts.start}`);
  return { env, args };
})();

const ARGS: Record<Entry, readonly string[]> = { sources: ['--import', 'tsx', 'src/main.ts'], 'npm-start': START.args };

/** Starts the real service as its own process. */
export async function startProcess(env: Record<string, string>, entry: Entry = 'sources'): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ARGS[entry], {
    env: {
      ...process.env,
      ...(entry === 'npm-start' ? START.env : {}),
      HOST: '127.0.0.1',
      PORT: String(port),
      WYOMING_PORT: 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // A stale dist/ is compiled first (~10 s on a busy 2-core machine).
  const deadline = Date.now() + 120_000;
  while (!out.includes('Server listening')) {
    if (child.exitCode !== null) throw new Error(`service exited: ${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    base: `http://127.0.0.1:${port}`,
    output: () => out,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** What `signedInKey` needs of the mail sink the service sends its sign-in links to. */
interface LinkInbox {
  messages: readonly unknown[];
  tokenFor(to: string, after?: number): Promise<string>;
}

/**
 * Signs in on a service started by startProcess (its SMTP_URL pointing at `mail`) and creates an API key with
 * that session, as a user would: the session cookie and the key.
 */
export async function signedInKey(
  base: string,
  mail: LinkInbox,
  email: string,
  origin: string,
  body: Record<string, unknown> = { name: 'test' },
): Promise<{ key: string; id: string; cookie: string }> {
  const post = (path: string, json: unknown, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(json) });
  const sent = mail.messages.length;
  const login = await post('/api/auth/login', { email });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${await login.text()}`);
  const verify = await post('/api/auth/verify', { token: await mail.tokenFor(email, sent) });
  if (verify.status !== 200) throw new Error(`verify failed: ${verify.status} ${await verify.text()}`);
  const cookie = verify.headers.getSetCookie()[0].split(';')[0];
  const created = await post('/api/auth/api-keys', body, { cookie, origin });
  if (created.status !== 201) throw new Error(`key creation failed: ${created.status} ${await created.text()}`);
  const { key, id } = (await created.json()) as { key: string; id: string };
  return { key, id, cookie };
}
