import type { Kysely } from 'kysely';

// Which key minted each key (null: the dashboard session, or a key made before parents were recorded), so
// revoking a key revokes every key it minted, down the whole line: a leaked key's look-alikes die with it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('parent_key_id', 'text').execute();
  await db.schema.createIndex('api_keys_parent').on('api_keys').column('parent_key_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('api_keys_parent').execute();
  await db.schema.alterTable('api_keys').dropColumn('parent_key_id').execute();
}
