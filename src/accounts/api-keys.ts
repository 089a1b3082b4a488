import { AppError } from '../errors.ts';
import { DEFAULT_KEY_SCOPES, KEY_SCOPES, type KeyScope } from '../schemas/api-keys.ts';
import type { Db, Dialect } from '../store/database.ts';
import type { SharedState } from '../store/shared-state/shared-state.ts';
import { generateKey, maskKey, parseKey } from './api-key-format.ts';
import { digestsEqual, sha256Hex } from './secrets.ts';
import { lockUserForCap } from './user-lock.ts';

export interface CreatedKey {
  key: string;
  id: string;
  name: string;
  created_at: string;
  scopes: KeyScope[];
}

export interface ListedKey {
  id: string;
  name: string;
  masked_key: string;
  created_at: string;
  last_used: string | null;
  scopes: KeyScope[];
  /** The key that minted this one; null when the dashboard session did. */
  parent_key_id: string | null;
}

export interface RevokedKeys {
  /** The key named. */
  id: string;
  /** The live keys it had minted, directly or down the line, revoked with it. */
  also_revoked: string[];
}

export interface KeyPrincipal {
  keyId: string;
  userId: string;
  scopes: readonly KeyScope[];
}

/**
 * Who asks for a new key: the account, the scopes the asking credential holds (all of them for a session), and
 * the asking key (null for a session), recorded as the new key's parent so it dies with it.
 */
export interface KeyGrantor {
  userId: string;
  scopes: readonly KeyScope[];
  keyId: string | null;
}

/** Scopes in their one stored order, each once. */
function canonicalScopes(scopes: Iterable<string>): KeyScope[] {
  const given = new Set(scopes);
  return KEY_SCOPES.filter((s) => given.has(s));
}

const storedScopes = (scopes: readonly KeyScope[]): string => canonicalScopes(scopes).join(' ');
const parsedScopes = (stored: string): KeyScope[] => canonicalScopes(stored.split(' '));

/**
 * The scopes a new key gets: those asked for (all when none are named), each of which the grantor must hold, so
 * no key can mint a key that may do more than itself.
 */
export function grantedScopes(grantor: KeyGrantor, requested: readonly KeyScope[] | undefined): KeyScope[] {
  const wanted = requested === undefined ? [...DEFAULT_KEY_SCOPES] : canonicalScopes(requested);
  const lacking = wanted.filter((s) => !grantor.scopes.includes(s));
  if (lacking.length > 0) {
    throw new AppError(
      'insufficient_scope',
      `A key may create only keys with scopes it holds itself (${grantor.scopes.join(', ')}); it lacks ${lacking.join(', ')}` +
        (requested === undefined ? '. Name the scopes of the new key in "scopes"' : ''),
    );
  }
  return wanted;
}

const LAST_USED_INTERVAL_MS = 60_000;

/** Live (unrevoked) keys one account may hold. */
export const MAX_KEYS_PER_USER = 50;

export class ApiKeyService {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    /** Revocations are broadcast here so every node closes the key's open streams at once. */
    private readonly events: Pick<SharedState, 'publish'>,
  ) {}

  /**
   * Creates a key unless the account already holds MAX_KEYS_PER_USER live ones. The count and the insert
   * are one conditional INSERT … SELECT … WHERE count < cap, so no second creation can slip in between.
   * On PostgreSQL the user's row is locked first (see lockUserForCap). The new key's scopes are those
   * requested (all by default), within the grantor's own.
   */
  async create(grantor: KeyGrantor, rawName: string, requestedScopes?: readonly KeyScope[]): Promise<CreatedKey> {
    const { userId } = grantor;
    const name = rawName.trim();
    if (name.length === 0) throw new AppError('validation', 'name must not be empty');
    const scopes = grantedScopes(grantor, requestedScopes);
    const { key, id, secret } = generateKey();
    const created_at = new Date().toISOString();
    const inserted = await this.db.transaction().execute(async (trx) => {
      await lockUserForCap(trx, this.dialect, userId);
      // Revocations take the same lock, so a key revoked while it mints either sees its child (and revokes it)
      // or is seen revoked here: no child can outlive its parent by being minted in between.
      if (grantor.keyId !== null && !(await this.isLive(trx, grantor.keyId))) throw new AppError('unauthorized');
      const result = await trx
        .insertInto('api_keys')
        .columns(['id', 'user_id', 'name', 'secret_hash', 'last4', 'created_at', 'scopes', 'parent_key_id'])
        .expression(
          trx
            .selectNoFrom((eb) => [
              eb.val(id).as('id'),
              eb.val(userId).as('user_id'),
              eb.val(name).as('name'),
              eb.val(sha256Hex(secret)).as('secret_hash'),
              eb.val(key.slice(-4)).as('last4'),
              eb.val(created_at).as('created_at'),
              eb.val(storedScopes(scopes)).as('scopes'),
              eb.val(grantor.keyId).as('parent_key_id'),
            ])
            .where((eb) =>
              eb(
                eb
                  .selectFrom('api_keys')
                  .select((c) => c.fn.countAll().as('live'))
                  .where('user_id', '=', userId)
                  .where('revoked_at', 'is', null),
                '<',
                MAX_KEYS_PER_USER,
              ),
            ),
        )
        .executeTakeFirst();
      return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
    });
    if (!inserted) throw new AppError('validation', `At most ${MAX_KEYS_PER_USER} active keys per account; revoke one first`);
    return { key, id, name, created_at, scopes };
  }

  async list(userId: string): Promise<ListedKey[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .select(['id', 'name', 'last4', 'created_at', 'last_used', 'scopes', 'parent_key_id'])
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .orderBy('created_at', 'asc')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      masked_key: maskKey(r.last4),
      created_at: r.created_at,
      last_used: r.last_used,
      scopes: parsedScopes(r.scopes),
      parent_key_id: r.parent_key_id,
    }));
  }

  /**
   * Revokes one of the caller's keys and every live key it minted, down the whole line, in one transaction, and
   * tells every node about each, so their streams close at once; null when the id names no live key of theirs
   * (then nothing is broadcast). Requests are refused on every node from the commit on, since each one reads its
   * key's row.
   */
  async revoke(userId: string, keyId: string): Promise<RevokedKeys | null> {
    const revoked = await this.db.transaction().execute(async (trx) => {
      await lockUserForCap(trx, this.dialect, userId);
      const named = await trx
        .selectFrom('api_keys')
        .select('id')
        .where('id', '=', keyId)
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (!named) return null;
      // The line walks through revoked keys too: one revoked before parents cascaded may have live children.
      const line = await trx
        .withRecursive('line(id)', (db) =>
          db
            .selectFrom('api_keys')
            .select('id')
            .where('id', '=', keyId)
            .union(db.selectFrom('api_keys').innerJoin('line', 'line.id', 'api_keys.parent_key_id').select('api_keys.id')),
        )
        .selectFrom('line')
        .innerJoin('api_keys', 'api_keys.id', 'line.id')
        .select('api_keys.id')
        .where('api_keys.user_id', '=', userId)
        .where('api_keys.revoked_at', 'is', null)
        .execute();
      const ids = line.map((r) => r.id);
      await trx.updateTable('api_keys').set({ revoked_at: new Date().toISOString() }).where('id', 'in', ids).execute();
      return ids;
    });
    if (revoked === null) return null;
    await Promise.all(revoked.map((id) => this.events.publish({ type: 'key-revoked', keyId: id })));
    return { id: keyId, also_revoked: revoked.filter((id) => id !== keyId) };
  }

  private async isLive(db: Db, keyId: string): Promise<boolean> {
    const row = await db.selectFrom('api_keys').select('revoked_at').where('id', '=', keyId).executeTakeFirst();
    return row !== undefined && row.revoked_at === null;
  }

  /** Resolves a presented key; null for malformed, unknown and revoked keys alike. */
  async authenticate(presented: string): Promise<KeyPrincipal | null> {
    const parsed = parseKey(presented);
    if (!parsed) return null;
    const row = await this.db
      .selectFrom('api_keys')
      .select(['id', 'user_id', 'secret_hash', 'last_used', 'revoked_at', 'scopes'])
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
    return { keyId: row.id, userId: row.user_id, scopes: parsedScopes(row.scopes) };
  }

  /** Whether the key still works (used by long-lived streams to re-check). */
  isActive(keyId: string): Promise<boolean> {
    return this.isLive(this.db, keyId);
  }
}
