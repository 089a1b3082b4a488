import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type { Database } from './schema.ts';
import { migrationProvider } from './migrations/index.ts';
import { createPool, GuardedPool, parseDatabaseUrl, poolConfig, type PgTarget } from './postgres.ts';
import { isStoreUnavailable, StoreUnavailableError } from './unavailable.ts';
import { describeError as describe, silentLogger as silent, type StoreLogger } from './logger.ts';

export type { StoreLogger };

export type Db = Kysely<Database>;
export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseOptions {
  dataDir: string;
  databaseUrl: string | null;
  /** PostgreSQL schema to use; wins over `?schema=` in DATABASE_URL (tests isolate themselves with one each). */
  pgSchema?: string;
}

/** The database and what the service needs to know about it beyond queries. */
export interface Store {
  readonly db: Db;
  readonly dialect: Dialect;
  /** Migrations have run and queries are let through. */
  readonly ready: boolean;
  /** Resolves once `ready` (at once for SQLite; for PostgreSQL when it was first reached). */
  whenReady(): Promise<void>;
  /** Throws StoreUnavailableError unless the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Runs pending migrations. `schema` names the PostgreSQL schema that holds the migration bookkeeping;
 * without it Kysely would look for its tables in every schema of the database and could find another
 * deployment's. Kysely's migrator takes an advisory lock on PostgreSQL, so nodes starting together take
 * turns and each migration runs once.
 */
export async function migrate(db: Db, schema?: string): Promise<void> {
  const giveUpAt = Date.now() + DROPPED_ELSEWHERE_BUDGET_MS;
  for (let attempt = 1; ; attempt++) {
    const migrator = new Migrator({ db, provider: migrationProvider, ...(schema ? { migrationTableSchema: schema } : {}) });
    const { error, results } = await migrator.migrateToLatest();
    const failed = results?.find((r) => r.status === 'Error');
    if (!error && !failed) return;
    if (schema && !results && Date.now() < giveUpAt && droppedElsewhere(error, schema)) {
      // Drops elsewhere come in bursts (a teardown, a deployment removed): wait them out rather than spin through them.
      await new Promise((resolve) => setTimeout(resolve, Math.min(20 * 2 ** attempt, 500)));
      continue;
    }
    const reason = error instanceof Error ? error.message : String(error ?? failed?.migrationName);
    throw new Error(`Database migration failed: ${reason}`, { cause: error });
  }
}

/**
 * Kysely's migrator looks for its own tables with one catalog query over every schema in the database, which
 * calls has_schema_privilege() and pg_get_serial_sequence() by name: a schema, table or column that someone
 * else drops while that query runs (another deployment's, a test's) fails it with "schema / relation / column
 * ... does not exist", although nothing of ours is wrong. Only that bookkeeping phase is retried (the migrator
 * returns no per-migration results then); a migration of ours that fails is reported at once.
 * Measured: 4 of 20 migrations failed while 30 other schemas were dropped; ten immediate retries were not enough
 * (2 runs of 6 still failed while the drops went on), so it retries with a growing pause for up to 30 s.
 */
const DROPPED_ELSEWHERE_BUDGET_MS = 30_000;
const DROPPED_OBJECT_CODES = new Set(['3F000', '42P01', '42703']);

function droppedElsewhere(error: unknown, schema: string): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: unknown }).code;
  if (typeof code !== 'string' || !DROPPED_OBJECT_CODES.has(code)) return false;
  return !(code === '3F000' && error.message.includes(`"${schema}"`));
}

/** Opens the configured store: SQLite under DATA_DIR by default, PostgreSQL when DATABASE_URL is set. */
export async function openStore(options: DatabaseOptions, log: StoreLogger = silent): Promise<Store> {
  if (options.databaseUrl) return PostgresStore.open(parseDatabaseUrl(options.databaseUrl, options.pgSchema), log);
  return openSqlite(options.dataDir);
}

async function openSqlite(dataDir: string): Promise<Store> {
  const { default: SQLite } = await import('better-sqlite3');
  mkdirSync(dataDir, { recursive: true });
  const sqlite = new SQLite(join(dataDir, 'voxsmith.db'));
  sqlite.pragma('journal_mode = WAL');
  // FULL: a write the API acknowledged is on disk, even if the machine loses power right after.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  // A local file that cannot be migrated will not fix itself: fail start-up.
  await migrate(db);
  let closed = false;
  return {
    db,
    dialect: 'sqlite',
    ready: true,
    whenReady: async () => {},
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}

const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 2_000;
const MIGRATION_TIMEOUT_MS = 120_000;

/**
 * PostgreSQL. The node starts even when the database cannot be reached: requests that need it answer 503
 * and migrations are retried in the background until they succeed, so nodes and database can be started
 * in any order. Loss and return of the database are each logged once.
 */
class PostgresStore implements Store {
  readonly dialect = 'postgres';
  readonly db: Db;
  private readonly pool: GuardedPool;
  private reachable = true;
  private closed = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private retryDelay = RETRY_FIRST_MS;
  private lastFailure: string | undefined;
  private readonly readyPromise: Promise<void>;
  private resolveReady: () => void = () => {};

  private constructor(
    private readonly target: PgTarget,
    pool: GuardedPool,
    private readonly log: StoreLogger,
  ) {
    this.pool = pool;
    this.db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    this.readyPromise = new Promise((resolve) => (this.resolveReady = resolve));
  }

  static async open(target: PgTarget, log: StoreLogger): Promise<PostgresStore> {
    // Declared before the pool so the pool's health callback can reach the store it is built into.
    // eslint-disable-next-line prefer-const
    let store: PostgresStore | undefined;
    const pool = new GuardedPool(await createPool(poolConfig(target, 10)), (ok, err) => store?.health(ok, err));
    store = new PostgresStore(target, pool, log);
    try {
      await store.attemptMigration(true);
    } catch (err) {
      await pool.end();
      throw err;
    }
    return store;
  }

  get ready(): boolean {
    return this.pool.isOpen;
  }

  whenReady(): Promise<void> {
    return this.readyPromise;
  }

  async ping(): Promise<void> {
    if (!this.pool.isOpen) throw new StoreUnavailableError('database not ready: migrations have not run yet');
    await sql`select 1`.execute(this.db);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.db.destroy();
    // Kysely only ends a pool it has used; end it ourselves for a node that never reached the database.
    await this.pool.end();
  }

  private health(ok: boolean, err?: unknown): void {
    if (ok === this.reachable) return;
    this.reachable = ok;
    if (ok) this.log.info({}, 'database reachable again');
    else this.log.warn({ err: describe(err) }, 'database unreachable: requests that need it answer 503 until it returns');
  }

  /** One try at migrating on a private pool with long timeouts: another node may hold the migration lock a while. */
  private async attemptMigration(first: boolean): Promise<void> {
    this.retryTimer = null;
    if (this.closed) return;
    const pool = new GuardedPool(
      await createPool({ ...poolConfig(this.target, 2), statement_timeout: false, query_timeout: MIGRATION_TIMEOUT_MS }),
      () => {},
    );
    pool.open();
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    try {
      const schema = this.target.schema ?? (await currentSchema(db));
      await migrate(db, schema);
      if (this.closed) return;
      this.pool.open();
      this.health(true);
      this.resolveReady();
    } catch (err) {
      if (first && !isStoreUnavailable(err)) throw err;
      if (this.closed) return;
      this.health(false, err);
      const failure = describe(err);
      // Reachable but failing (permissions, a broken migration): worth an error, once per distinct reason.
      if (!isStoreUnavailable(err) && failure.message !== this.lastFailure)
        this.log.error({ err: failure }, 'database migration failed; retrying');
      this.lastFailure = failure.message;
      this.retryTimer = setTimeout(() => void this.attemptMigration(false), this.retryDelay);
      this.retryTimer.unref();
      this.retryDelay = Math.min(this.retryDelay * 2, RETRY_MAX_MS);
    } finally {
      await db.destroy().catch(() => {});
      await pool.end().catch(() => {});
    }
  }
}

async function currentSchema(db: Db): Promise<string> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error('PostgreSQL has no current schema (search_path names none that exists); set ?schema= in DATABASE_URL');
  return schema;
}
