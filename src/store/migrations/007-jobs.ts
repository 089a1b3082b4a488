import { PostgresAdapter, type Kysely } from 'kysely';

// Long-form jobs. Everything a node needs to render any piece of any book, and every finished piece and
// encoded chapter, lives in the database, so a job survives the death of the node that took it and every node
// of a cluster can render pieces of the same book (a shared folder would be one more thing to deploy).
export async function up(db: Kysely<unknown>): Promise<void> {
  // Kysely writes column types verbatim: PostgreSQL has no `blob`, SQLite gives `bytea` numeric affinity.
  const bytes = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob';

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // The key that created it ('' for the dashboard): usage is counted against it, like a request's.
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('author', 'text')
    .addColumn('voice_id', 'text', (c) => c.notNull())
    .addColumn('speed', 'double precision', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('lexicons', 'text')
    .addColumn('text_type', 'text', (c) => c.notNull())
    .addColumn('characters', 'integer', (c) => c.notNull())
    .addColumn('chars_done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('pieces', 'integer', (c) => c.notNull())
    .addColumn('pieces_done', 'integer', (c) => c.notNull().defaultTo(0))
    // Pieces handed to the queue so far: each book keeps only a window of its pieces queued, so books share the nodes.
    .addColumn('pieces_queued', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('chapters', 'integer', (c) => c.notNull())
    .addColumn('chapters_done', 'integer', (c) => c.notNull().defaultTo(0))
    // Set once the book is assembled: which attempt's 'book' (or, for mp3, 'gap') bytes in job_audio count.
    .addColumn('book_attempt', 'text')
    .addColumn('book_bytes', 'bigint')
    .addColumn('book_seconds', 'double precision')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('expires_at', 'text')
    .execute();
  await db.schema.createIndex('jobs_user').on('jobs').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('jobs_status').on('jobs').columns(['status']).execute();

  await db.schema
    .createTable('job_chapters')
    .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('n', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('characters', 'integer', (c) => c.notNull())
    .addColumn('chars_done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('first_piece', 'integer', (c) => c.notNull())
    .addColumn('pieces', 'integer', (c) => c.notNull())
    .addColumn('pieces_done', 'integer', (c) => c.notNull().defaultTo(0))
    // Set once its audio is encoded and stored: which attempt's bytes in job_audio are the chapter's.
    .addColumn('audio_attempt', 'text')
    .addColumn('audio_bytes', 'bigint')
    // Bytes at the start of its file that the whole book leaves out (the chapter's own MP3 Info frame).
    .addColumn('audio_head', 'integer')
    .addColumn('samples', 'bigint')
    .addColumn('mp3_frames', 'integer')
    // Where it starts in the whole book's audio, set when the book is assembled.
    .addColumn('start_seconds', 'double precision')
    .addPrimaryKeyConstraint('job_chapters_pk', ['job_id', 'n'])
    .execute();

  await db.schema
    .createTable('job_pieces')
    .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('n', 'integer', (c) => c.notNull())
    .addColumn('chapter', 'integer', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('ssml', 'integer', (c) => c.notNull())
    .addColumn('characters', 'integer', (c) => c.notNull())
    .addColumn('pause_before', 'text')
    // The rendered audio (16-bit PCM, 24 kHz): set once, when the piece is stored; dropped once not needed.
    .addColumn('pcm', bytes)
    // Not null = stored (the piece counts as done even after its PCM was dropped).
    .addColumn('samples', 'bigint')
    .addColumn('rendered_by', 'text')
    .addPrimaryKeyConstraint('job_pieces_pk', ['job_id', 'n'])
    .execute();

  await db.schema
    .createTable('job_audio')
    .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    // 'chapter:<n>', 'book' or 'gap'.
    .addColumn('part', 'text', (c) => c.notNull())
    .addColumn('attempt', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('start_byte', 'bigint', (c) => c.notNull())
    .addColumn('bytes', bytes, (c) => c.notNull())
    .addPrimaryKeyConstraint('job_audio_pk', ['job_id', 'part', 'attempt', 'seq'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('job_audio').execute();
  await db.schema.dropTable('job_pieces').execute();
  await db.schema.dropTable('job_chapters').execute();
  await db.schema.dropTable('jobs').execute();
}
