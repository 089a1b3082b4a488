import { PostgresAdapter, type Kysely } from 'kysely';

// Books that are checked and kept up to date (issue 41): each piece's check and how it was got (rendered or
// reused), per-chapter counts of both, a chapter's own voice, speed and lexicons after a redo, the job a new
// version of a book replaces, and the account's store of checked pieces keyed by what decides their audio.
export async function up(db: Kysely<unknown>): Promise<void> {
  const bytes = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob';
  for (const c of ['checks_passed', 'checks_retried', 'checks_failed', 'pieces_rendered', 'pieces_reused'])
    await db.schema
      .alterTable('job_chapters')
      .addColumn(c, 'integer', (col) => col.notNull().defaultTo(0))
      .execute();
  await db.schema.alterTable('job_chapters').addColumn('voice_id', 'text').execute();
  await db.schema.alterTable('job_chapters').addColumn('speed', 'double precision').execute();
  await db.schema.alterTable('job_chapters').addColumn('lexicons', 'text').execute();
  await db.schema.alterTable('job_pieces').addColumn('content_key', 'text').execute();
  // 'passed', 'retried' (passed once rendered again) or 'failed'; null until stored.
  await db.schema.alterTable('job_pieces').addColumn('check_state', 'text').execute();
  await db.schema.alterTable('job_pieces').addColumn('check_problem', 'text').execute();
  await db.schema
    .alterTable('job_pieces')
    .addColumn('reused', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('jobs').addColumn('replaces', 'text').execute();
  await db.schema
    .createTable('job_piece_store')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('content_key', 'text', (c) => c.notNull())
    .addColumn('pcm', bytes, (c) => c.notNull())
    .addColumn('pcm_deflated', 'integer', (c) => c.notNull())
    .addColumn('samples', 'bigint', (c) => c.notNull())
    // The piece's word timings (JSON), as job_pieces.words: a reused piece still feeds a read-along EPUB.
    .addColumn('words', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    // Kept JOB_RETENTION_DAYS after its last use.
    .addColumn('used_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('job_piece_store_pk', ['user_id', 'content_key'])
    .execute();
  await db.schema.createIndex('job_piece_store_used').on('job_piece_store').column('used_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('job_piece_store').execute();
  await db.schema.alterTable('jobs').dropColumn('replaces').execute();
  for (const c of ['content_key', 'check_state', 'check_problem', 'reused'])
    await db.schema.alterTable('job_pieces').dropColumn(c).execute();
  for (const c of ['checks_passed', 'checks_retried', 'checks_failed', 'pieces_rendered', 'pieces_reused', 'voice_id', 'speed', 'lexicons'])
    await db.schema.alterTable('job_chapters').dropColumn(c).execute();
}
