import type { Generated } from 'kysely';

/**
 * Table types shared by every dialect. Timestamps are ISO 8601 UTC strings (`Date#toISOString`), which
 * sort lexicographically in both SQLite and PostgreSQL, so range checks need no dialect-specific types.
 */
export interface UsersTable {
  id: string;
  email: string;
  plan: string;
  created_at: string;
}

export interface MagicLinksTable {
  token_hash: string;
  email: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface SessionsTable {
  id_hash: string;
  user_id: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  secret_hash: string;
  last4: string;
  created_at: string;
  last_used: string | null;
  revoked_at: string | null;
  /** Space-separated, in KEY_SCOPES order. */
  scopes: string;
  /** The key that minted this one; null when a session did (or before parents were recorded). */
  parent_key_id: string | null;
}

export interface UsageTable {
  user_id: string;
  /** '' for usage through a session rather than a key. */
  key_id: string;
  day: string;
  chars: Generated<number>;
  requests: Generated<number>;
}

export interface Database {
  users: UsersTable;
  magic_links: MagicLinksTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
  usage: UsageTable;
}
