import type { Kysely } from 'kysely';

// Each stored piece keeps its word timings (issue 41): a read-along EPUB's Media Overlays are built from them
// once the piece's PCM is long gone.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('job_pieces').addColumn('words', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('job_pieces').dropColumn('words').execute();
}
