import type { Pool, PoolClient, PoolConfig } from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { isBrokenConnection, isStoreUnavailable, StoreUnavailableError } from './unavailable.ts';

/** Where the data lives: the connection string pg understands, and the schema (null: the role's default). */
export interface PgTarget {
  connectionString: string;
  schema: string | null;
}

// Lower-case identifiers only, so the name needs no quoting in search_path or DDL.
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Reads `DATABASE_URL`. A `schema` query parameter (`postgres://host/db?schema=voxsmith`) selects the
 * schema; it is removed before pg sees the URL. `override` (tests) wins over the URL.
 */
export function parseDatabaseUrl(databaseUrl: string, override?: string): PgTarget {
  const url = new URL(databaseUrl);
  const fromUrl = url.searchParams.get('schema');
  url.searchParams.delete('schema');
  const schema = override ?? (fromUrl && fromUrl.length > 0 ? fromUrl : null);
  if (schema !== null && !SCHEMA_NAME.test(schema)) {
    throw new Error(`database schema "${schema}" must be lower-case letters, digits and _ (at most 63, not starting with a digit)`);
  }
  return { connectionString: url.toString(), schema };
}

/**
 * Pool settings chosen so that a database that is down or unreachable turns into a fast error, never a
 * hang: connecting gives up after 2 s, a statement after 5 s on the server, a reply after 6 s on the
 * client (a silent network), and TCP keep-alive notices dead peers.
 */
export function poolConfig(target: PgTarget, max: number): PoolConfig {
  return {
    connectionString: target.connectionString,
    max,
    connectionTimeoutMillis: 2_000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 5_000,
    statement_timeout: 5_000,
    query_timeout: 6_000,
    idle_in_transaction_session_timeout: 30_000,
    application_name: 'voxsmith',
    ...(target.schema ? { options: `-c search_path=${target.schema}` } : {}),
  };
}

export async function createPool(config: PoolConfig): Promise<Pool> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool(config);
  // An idle client losing its connection must not crash the process; the next query reports it.
  pool.on('error', () => {});
  return pool;
}

/**
 * The pool Kysely sees. It refuses work until migrations have run (so a request never meets a missing
 * table), discards a client whose connection failed instead of handing it to the next request, and tells
 * `onHealth` when the database is lost and when it answers again.
 */
export class GuardedPool implements PostgresPool {
  private gateOpen = false;
  private ended = false;

  constructor(
    private readonly pool: Pool,
    private readonly onHealth: (reachable: boolean, err?: unknown) => void,
  ) {}

  open(): void {
    this.gateOpen = true;
  }

  get isOpen(): boolean {
    return this.gateOpen;
  }

  async connect(): Promise<PostgresPoolClient> {
    if (!this.gateOpen) throw new StoreUnavailableError('database not ready: migrations have not run yet');
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      if (isStoreUnavailable(err)) this.onHealth(false, err);
      throw err;
    }
    this.onHealth(true);
    let broken: Error | undefined;
    // pg-pool listens for errors only on idle clients; a connection dying while checked out (the socket
    // closes between queries) would otherwise be an uncaught 'error' event that ends the process.
    const onError = (err: Error) => {
      broken = err;
      this.onHealth(false, err);
    };
    client.on('error', onError);
    const query = async (text: string, parameters: ReadonlyArray<unknown>) => {
      try {
        return await client.query(text, [...parameters]);
      } catch (err) {
        if (isBrokenConnection(err)) {
          broken = err as Error;
          this.onHealth(false, err);
        }
        throw err;
      }
    };
    return {
      // Kysely only passes a cursor when configured with one; this store never is.
      query: query as unknown as PostgresPoolClient['query'],
      // Releasing with an error makes pg-pool destroy the client rather than reuse a dead socket.
      release: () => {
        client.off('error', onError);
        client.release(broken);
      },
    };
  }

  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.pool.end();
  }
}
