import type { Kysely } from 'kysely';

// Jobs bounded before work (issue 44): the audio a job will hold (its budget, the account's quota), whether a
// piece's stored PCM is deflated (silence then costs almost nothing until its chapter is encoded), and the
// client's Idempotency-Key, so a retried creation finds the job the first attempt made.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('jobs')
    .addColumn('audio_seconds', 'double precision', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('jobs').addColumn('idempotency_key', 'text').execute();
  await db.schema.createIndex('jobs_idempotency').unique().on('jobs').columns(['user_id', 'idempotency_key']).execute();
  await db.schema
    .alterTable('job_pieces')
    .addColumn('pcm_deflated', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('jobs_idempotency').execute();
  await db.schema.alterTable('jobs').dropColumn('idempotency_key').execute();
  await db.schema.alterTable('jobs').dropColumn('audio_seconds').execute();
  await db.schema.alterTable('job_pieces').dropColumn('pcm_deflated').execute();
}
