import type { Kysely, Transaction } from 'kysely';
import type { Dialect } from '../store/database.ts';
import type { Database } from '../store/schema.ts';

/**
 * Serializes a per-account cap check with its insert. SQLite runs one writer at a time, so a count and an
 * insert in one transaction are already atomic there. PostgreSQL (READ COMMITTED) lets two transactions count
 * in parallel snapshots, so there the user's row is locked first: concurrent creations for one account queue on
 * it, and each count, taken after the previous holder committed, sees that holder's row. FOR NO KEY UPDATE
 * rather than FOR UPDATE, so foreign-key checks on the user (a session being created meanwhile) are not held up.
 */
export async function lockUserForCap<DB extends Database>(
  trx: Transaction<DB> | Kysely<DB>,
  dialect: Dialect,
  userId: string,
): Promise<void> {
  if (dialect !== 'postgres') return;
  const db = trx as unknown as Kysely<Database>;
  await db.selectFrom('users').select('id').where('id', '=', userId).forNoKeyUpdate().execute();
}
