import type { Kysely } from 'kysely';

// Wyoming (Home Assistant): which API key its use is billed to, chosen on the dashboard (one row: one Wyoming
// port per installation, shared by every node), and the last requests it served, for the dashboard to show.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('wyoming_link')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('key_id', 'text', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('connected_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('wyoming_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // Null: refused before any key was connected.
    .addColumn('key_id', 'text')
    .addColumn('served_at', 'text', (c) => c.notNull())
    .addColumn('client', 'text', (c) => c.notNull())
    .addColumn('voice_id', 'text')
    .addColumn('characters', 'integer', (c) => c.notNull())
    .addColumn('audio_ms', 'integer', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('wyoming_requests_served').on('wyoming_requests').column('served_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('wyoming_requests').execute();
  await db.schema.dropTable('wyoming_link').execute();
}
