// The server a suite talks to, set up and torn down by node:test itself: one call in place of the
// `let s; before(start, sign in, make a key); after(close)` each suite would otherwise write.
import { after, before } from 'node:test';
import { startServer, type RequestOptions, type StartOptions, type TestServer } from './server.ts';

export interface ServiceOptions extends StartOptions {
  /** An account signed in through the real magic-link flow before the tests, holding an API key. */
  user?: string;
  /** The name of that key ("test" when absent). */
  keyName?: string;
}

/** A running test server and, with `user`, that account's API key and session. */
export class Service implements TestServer {
  #server: TestServer | undefined;
  #account: { key: string; id: string; cookie: string } | undefined;

  /** Called by the hooks useService registers. */
  async start(options: ServiceOptions): Promise<void> {
    const { user, keyName, ...startOptions } = options;
    this.#server = await startServer(startOptions);
    if (user !== undefined) this.#account = await this.#server.newKey(user, keyName);
  }

  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    this.#account = undefined;
    await server?.close();
  }

  get server(): TestServer {
    if (!this.#server) throw new Error('the service runs from the before() hook to the after() hook of its scope');
    return this.#server;
  }

  private get account(): { key: string; id: string; cookie: string } {
    if (!this.#account) throw new Error('the service was started without a user');
    return this.#account;
  }

  /** The user's API key. */
  get key(): string {
    return this.account.key;
  }

  /** The id of that key. */
  get keyId(): string {
    return this.account.id;
  }

  /** The user's session cookie (from signing in to make the key). */
  get cookie(): string {
    return this.account.cookie;
  }

  /** A request with the user's API key (another `bearer` or a `cookie` in `init` goes instead). */
  call(path: string, init: RequestOptions = {}): Promise<Response> {
    return this.server.request(path, init.bearer === undefined && init.cookie === undefined ? { ...init, bearer: this.key } : init);
  }

  get app(): TestServer['app'] {
    return this.server.app;
  }
  get base(): string {
    return this.server.base;
  }
  get origin(): string {
    return this.server.origin;
  }
  get dataDir(): string {
    return this.server.dataDir;
  }
  get store(): TestServer['store'] {
    return this.server.store;
  }
  get mail(): TestServer['mail'] {
    return this.server.mail;
  }
  get logs(): string[] {
    return this.server.logs;
  }
  request(path: string, init?: RequestOptions): Promise<Response> {
    return this.server.request(path, init);
  }
  signIn(email: string): ReturnType<TestServer['signIn']> {
    return this.server.signIn(email);
  }
  newKey(email: string, name?: string): ReturnType<TestServer['newKey']> {
    return this.server.newKey(email, name);
  }
  storedText(): Promise<string> {
    return this.server.storedText();
  }
  close(): Promise<void> {
    return this.stop();
  }
}

/**
 * A server for the tests of the enclosing scope (the file, or the describe it is called in): started in a
 * before() hook, with `user` signed in and given an API key, then `setUp` (what the suite builds on the
 * server: SDK clients, fixtures through the API), and closed in an after() hook, whatever the tests did.
 * Work that needs the server belongs in `setUp`, not in a before() of its own: at the top of a file node's
 * runner starts every before() hook as it is registered, side by side, so a second one would not wait for
 * this one. An after() registered behind this call runs once the server is closed.
 */
export function useService(options: ServiceOptions = {}, setUp?: (service: Service) => unknown): Service {
  const service = new Service();
  before(async () => {
    await service.start(options);
    await setUp?.(service);
  });
  after(() => service.stop());
  return service;
}
