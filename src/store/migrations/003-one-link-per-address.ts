import { sql, type Kysely } from 'kysely';

// One outstanding sign-in link per address, enforced by the database: two concurrent logins for the same
// address then cannot both leave a valid link (the upsert in MagicLinkService replaces the row).
export async function up(db: Kysely<unknown>): Promise<void> {
  // Keep only the newest row of any address that raced before this index existed.
  await sql`DELETE FROM magic_links WHERE token_hash IN (
    SELECT m.token_hash FROM magic_links m
    WHERE EXISTS (SELECT 1 FROM magic_links n WHERE n.email = m.email AND (n.created_at > m.created_at OR (n.created_at = m.created_at AND n.token_hash > m.token_hash)))
  )`.execute(db);
  await db.schema.dropIndex('magic_links_email').execute();
  await db.schema.createIndex('magic_links_email').on('magic_links').column('email').unique().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('magic_links_email').execute();
  await db.schema.createIndex('magic_links_email').on('magic_links').column('email').execute();
}
