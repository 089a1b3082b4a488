import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';

/** The PostgreSQL and Redis the tests use (CI runs both on this machine); each test takes its own schema / prefix. */
export const TEST_PG_URL = process.env.VOXSMITH_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.VOXSMITH_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Which store the API suites run against in this process (scripts/run-tests.mjs sets it for the second pass). */
export const testStore: 'sqlite' | 'postgres' = process.env.VOXSMITH_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';
export const testWithRedis = process.env.VOXSMITH_TEST_REDIS === '1';

export function randomSchema(tag = 't'): string {
  return `vt_${tag}_${randomBytes(6).toString('hex')}`;
}

export function randomPrefix(tag = 't'): string {
  return `vt:${tag}:${randomBytes(6).toString('hex')}:`;
}

/** Runs `work` with a short-lived admin connection to the test database. */
export async function withPg<T>(work: (client: pg.Client) => Promise<T>, url = TEST_PG_URL): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function dropSchema(schema: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`bad schema name ${schema}`);
  await withPg((c) => c.query(`drop schema if exists ${schema} cascade`));
}

/** Every row of every table in `schema`, as text: for "this secret is not stored anywhere" checks. */
export async function schemaText(schema: string): Promise<string> {
  return withPg(async (c) => {
    const tables = await c.query<{ table_name: string }>('select table_name from information_schema.tables where table_schema = $1', [
      schema,
    ]);
    const parts: string[] = [];
    for (const { table_name } of tables.rows) {
      const rows = await c.query<{ row: string }>(`select t::text as row from ${schema}."${table_name}" t`);
      parts.push(...rows.rows.map((r) => r.row));
    }
    return parts.join('\n');
  });
}

export async function redisKeys(prefix: string, url = TEST_REDIS_URL): Promise<string[]> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    return await redis.keys(`${prefix}*`);
  } finally {
    redis.disconnect();
  }
}

export async function deleteRedisPrefix(prefix: string, url = TEST_REDIS_URL): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
