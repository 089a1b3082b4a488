import { connect, createServer, type Server, type Socket } from 'node:net';
import { freePort } from './process.ts';

/**
 * A TCP forwarder the test controls, standing between the service and a real server (PostgreSQL): `cut()`
 * drops every connection and refuses new ones (the database went down), `silence()` keeps connections
 * open but forwards nothing (a network that loses packets), `restore()` forwards again on the same port.
 */
export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private silent = false;

  private constructor(
    readonly port: number,
    private readonly targetPort: number,
    private readonly targetHost: string,
  ) {}

  /** A proxy on a free port; not listening until `restore()` (so it starts out "down"). */
  static async create(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
    return new TcpProxy(await freePort(), targetPort, targetHost);
  }

  static async start(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
    const proxy = await TcpProxy.create(targetPort, targetHost);
    await proxy.restore();
    return proxy;
  }

  get listening(): boolean {
    return this.server !== null;
  }

  async restore(): Promise<void> {
    this.silent = false;
    if (this.server) return;
    const server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** From now on bytes go nowhere, in either direction, on old and new connections alike. */
  silence(): void {
    this.silent = true;
  }

  private accept(client: Socket): void {
    const upstream = connect(this.targetPort, this.targetHost);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.sockets.add(from);
      from.on('data', (chunk: Buffer) => {
        if (!this.silent) to.write(chunk);
      });
      from.on('error', () => to.destroy());
      from.on('close', () => {
        this.sockets.delete(from);
        to.destroy();
      });
    }
  }
}
