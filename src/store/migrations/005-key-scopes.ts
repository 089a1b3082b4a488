import type { Kysely } from 'kysely';

// What each API key may do: its scopes, space-separated in a fixed order. Keys made before scopes existed
// could do everything their owner could, so they keep every scope.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('scopes', 'text', (c) => c.notNull().defaultTo('speech voices keys usage'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('scopes').execute();
}
