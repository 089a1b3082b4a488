// Event-loop responsiveness of the server seen from outside: a separate process (so the load driver's
// own busy event loop does not add to the numbers) times a cheap GET every 10 ms while a window is open.
// Run by bench/run.ts through fork(); not meant to be started by hand.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { request } from './http-client.ts';

type ToProbe = { type: 'start'; url: string; intervalMs: number } | { type: 'stop' };
type FromProbe = { type: 'samples'; latenciesMs: number[]; errors: number };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The parent's handle: one window at a time, start() then stop() for its latencies. */
export class Probe {
  private constructor(private readonly child: ChildProcess) {}

  static launch(): Probe {
    const child = fork(fileURLToPath(import.meta.url), ['--probe-child'], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new Probe(child);
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  start(url: string, intervalMs = 10): void {
    if (this.child.connected) this.child.send({ type: 'start', url, intervalMs } satisfies ToProbe);
  }

  /** The window's latencies; none if the probe process has gone (Ctrl-C reaches it too). */
  stop(): Promise<{ latenciesMs: number[]; errors: number }> {
    if (!this.child.connected) return Promise.resolve({ latenciesMs: [], errors: 0 });
    return new Promise((resolve) => {
      const gone = () => resolve({ latenciesMs: [], errors: 0 });
      this.child.once('exit', gone);
      this.child.once('message', (m: FromProbe) => {
        this.child.off('exit', gone);
        resolve({ latenciesMs: m.latenciesMs, errors: m.errors });
      });
      this.child.send({ type: 'stop' } satisfies ToProbe);
    });
  }

  /** Ends the probe process (it exits when its channel closes). */
  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    if (this.child.connected) this.child.disconnect();
    await exited;
  }
}

async function childMain(): Promise<void> {
  let running = false;
  let loop: Promise<void> = Promise.resolve();
  let latencies: number[] = [];
  let errors = 0;
  process.on('message', async (m: ToProbe) => {
    if (m.type === 'start') {
      running = true;
      latencies = [];
      errors = 0;
      loop = (async () => {
        let next = performance.now();
        while (running) {
          try {
            const r = await request(m.url);
            if (r.status === 200) latencies.push(r.totalMs);
            else errors += 1;
          } catch {
            errors += 1;
          }
          next += m.intervalMs;
          const wait = next - performance.now();
          if (wait > 0) await sleep(wait);
          else next = performance.now();
        }
      })();
    } else {
      running = false;
      await loop;
      process.send?.({ type: 'samples', latenciesMs: latencies, errors } satisfies FromProbe);
    }
  });
  process.on('disconnect', () => process.exit(0));
}

if (process.argv.includes('--probe-child')) await childMain();
