import { sql, type Kysely } from 'kysely';

// Pronunciation lexicons: named per account, rules kept as one JSON text (both dialects alike; a lexicon is
// always read and written whole). `is_default` is 0/1 rather than a boolean so both dialects compare it alike.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('lexicons')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('rules', 'text', (c) => c.notNull())
    .addColumn('rule_count', 'integer', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('lexicons_owner_name').on('lexicons').columns(['owner_id', 'name']).unique().execute();
  // At most one default per account, enforced by the database rather than by the order of two updates.
  await db.schema
    .createIndex('lexicons_owner_default')
    .on('lexicons')
    .column('owner_id')
    .unique()
    .where(sql.ref('is_default'), '=', 1)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('lexicons').execute();
}
