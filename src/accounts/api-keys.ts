import type { Db } from '../store/database.ts';
import { generateKey, maskKey, parseKey } from './api-key-format.ts';
import { digestsEqual, sha256Hex } from './secrets.ts';

export interface CreatedKey {
  key: string;
  id: string;
  name: string;
  created_at: string;
}

export interface ListedKey {
  id: string;
  name: string;
  masked_key: string;
  created_at: string;
  last_used: string | null;
}

export interface KeyPrincipal {
  keyId: string;
  userId: string;
}

const LAST_USED_INTERVAL_MS = 60_000;

export class ApiKeyService {
  constructor(private readonly db: Db) {}

  async create(userId: string, name: string): Promise<CreatedKey> {
    const { key, id, secret } = generateKey();
    const created_at = new Date().toISOString();
    await this.db
      .insertInto('api_keys')
      .values({ id, user_id: userId, name, secret_hash: sha256Hex(secret), last4: key.slice(-4), created_at, last_used: null, revoked_at: null })
      .execute();
    return { key, id, name, created_at };
  }

  async list(userId: string): Promise<ListedKey[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .select(['id', 'name', 'last4', 'created_at', 'last_used'])
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .orderBy('created_at', 'asc')
      .execute();
    return rows.map((r) => ({ id: r.id, name: r.name, masked_key: maskKey(r.last4), created_at: r.created_at, last_used: r.last_used }));
  }

  /** Revokes the caller's own key; false when the id names no live key of theirs. */
  async revoke(userId: string, keyId: string): Promise<boolean> {
    const result = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: new Date().toISOString() })
      .where('id', '=', keyId)
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Resolves a presented key; null for malformed, unknown and revoked keys alike. */
  async authenticate(presented: string): Promise<KeyPrincipal | null> {
    const parsed = parseKey(presented);
    if (!parsed) return null;
    const row = await this.db
      .selectFrom('api_keys')
      .select(['id', 'user_id', 'secret_hash', 'last_used', 'revoked_at'])
      .where('id', '=', parsed.id)
      .executeTakeFirst();
    // Hash even when no row exists so a miss costs the same as a mismatch.
    const presentedHash = sha256Hex(parsed.secret);
    if (!row || !digestsEqual(presentedHash, row.secret_hash) || row.revoked_at !== null) return null;
    const now = Date.now();
    if (row.last_used === null || Date.parse(row.last_used) + LAST_USED_INTERVAL_MS <= now) {
      const stamp = new Date(now).toISOString();
      const cutoff = new Date(now - LAST_USED_INTERVAL_MS).toISOString();
      await this.db
        .updateTable('api_keys')
        .set({ last_used: stamp })
        .where('id', '=', row.id)
        .where((eb) => eb.or([eb('last_used', 'is', null), eb('last_used', '<=', cutoff)]))
        .execute();
    }
    return { keyId: row.id, userId: row.user_id };
  }

  /** Whether the key still works (used by long-lived streams to re-check). */
  async isActive(keyId: string): Promise<boolean> {
    const row = await this.db.selectFrom('api_keys').select('revoked_at').where('id', '=', keyId).executeTakeFirst();
    return row !== undefined && row.revoked_at === null;
  }
}
