import { PostgresAdapter, type Kysely } from 'kysely';

// Owned voices (clones and bred voices) and the uploads clones were made from. Both live in the database
// so that every node can use, list and delete a voice another node created. JSON columns are text, as
// elsewhere in this schema, so both dialects store them alike.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Kysely writes column types verbatim: PostgreSQL has no `blob`, SQLite gives `bytea` numeric affinity.
  const bytes = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob';

  await db.schema
    .createTable('voices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('language_name', 'text', (c) => c.notNull())
    .addColumn('gender', 'text', (c) => c.notNull())
    .addColumn('engine', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('parents', 'text')
    .addColumn('genome', 'text', (c) => c.notNull())
    .addColumn('spec', 'text', (c) => c.notNull())
    .addColumn('features', 'text')
    .addColumn('mutation_rate', 'double precision')
    .addColumn('seed', 'bigint')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('voices_owner').on('voices').columns(['owner_id', 'created_at']).execute();

  await db.schema
    .createTable('voice_samples')
    .addColumn('voice_id', 'text', (c) => c.primaryKey().references('voices.id').onDelete('cascade'))
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('container', 'text', (c) => c.notNull())
    .addColumn('byte_length', 'integer', (c) => c.notNull())
    .addColumn('bytes', bytes, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('voice_samples').execute();
  await db.schema.dropTable('voices').execute();
}
