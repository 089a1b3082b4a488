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
    env: { ...process.env, ...(entry === 'npm-start' ? START.env : {}), HOST: '127.0.0.1', PORT: String(port), WYOMING_PORT: 'off', ...env },
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
