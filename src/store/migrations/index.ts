import type { Migration, MigrationProvider } from 'kysely';
import * as accounts from './001-accounts.ts';
import * as voices from './002-voices.ts';
import * as oneLinkPerAddress from './003-one-link-per-address.ts';
import * as lexicons from './004-lexicons.ts';
import * as keyScopes from './005-key-scopes.ts';
import * as jobs from './007-jobs.ts';
import * as wyoming from './008-wyoming.ts';
import * as keyParents from './009-key-parents.ts';
import * as jobBounds from './010-job-bounds.ts';
import * as pieceWords from './011-piece-words.ts';
import * as bookPieces from './012-book-pieces.ts';

/** Versioned migrations, in order. Listed in code so they work the same from source and in any bundle. */
const MIGRATIONS: Record<string, Migration> = {
  '001-accounts': accounts,
  '002-voices': voices,
  '003-one-link-per-address': oneLinkPerAddress,
  '004-lexicons': lexicons,
  '005-key-scopes': keyScopes,
  '007-jobs': jobs,
  '008-wyoming': wyoming,
  '009-key-parents': keyParents,
  '010-job-bounds': jobBounds,
  '011-piece-words': pieceWords,
  '012-book-pieces': bookPieces,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => MIGRATIONS,
};
