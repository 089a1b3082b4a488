import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from './process.ts';

/**
 * A private redis-server (Debian's `redis-server`) on a spare port, for tests that stop and restart Redis
 * without touching the one other tests share.
 */
export class PrivateRedis {
  private child: ChildProcess | null = null;

  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const redis = await PrivateRedis.stopped();
    await redis.start();
    return redis;
  }

  /** One whose port is reserved but not yet listening: "Redis is not there". */
  static async stopped(): Promise<PrivateRedis> {
    return new PrivateRedis(await freePort());
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    this.child = child;
    const deadline = Date.now() + 10_000;
    while (!(await this.pings())) {
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error('redis-server did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Kills the server outright, as a crash or a lost machine would. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  private pings(): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = connect(this.port, '127.0.0.1');
      let reply = '';
      socket.setTimeout(500, () => socket.destroy());
      socket.on('connect', () => socket.write('PING\r\n'));
      socket.on('data', (d: Buffer) => {
        reply += d.toString();
        if (reply.includes('\r\n')) socket.end();
      });
      socket.on('error', () => resolve(false));
      socket.on('close', () => resolve(reply.startsWith('+PONG')));
    });
  }
}
