import type { Db } from '../store/database.ts';
import { randomToken, sha256Hex } from './secrets.ts';

/** One-time sign-in tokens: 32 random bytes, stored only as SHA-256, single use, newest link wins. */
export class MagicLinkService {
  constructor(
    private readonly db: Db,
    readonly ttlMs: number,
  ) {}

  async issue(email: string): Promise<string> {
    const token = randomToken(32);
    const now = new Date();
    const row = {
      token_hash: sha256Hex(token),
      email,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + this.ttlMs).toISOString(),
      used_at: null,
    };
    // One row per address (unique index): a newer link replaces, and so voids, any older one, atomically
    // even when two logins for the same address race.
    await this.db
      .insertInto('magic_links')
      .values(row)
      .onConflict((oc) =>
        oc
          .column('email')
          .doUpdateSet({ token_hash: row.token_hash, created_at: row.created_at, expires_at: row.expires_at, used_at: null }),
      )
      .execute();
    return token;
  }

  /**
   * Marks the token used and returns its address, or null when it is unknown, used or expired. One
   * conditional UPDATE does the check and the claim, so of two concurrent verifies exactly one wins.
   */
  async consume(token: string): Promise<string | null> {
    const now = new Date().toISOString();
    const row = await this.db
      .updateTable('magic_links')
      .set({ used_at: now })
      .where('token_hash', '=', sha256Hex(token))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning('email')
      .executeTakeFirst();
    return row?.email ?? null;
  }

  /**
   * Why `consume` refused a token: `expired` when the link was never used and merely ran out of time (the
   * client should ask for a new one), otherwise `invalid` (never issued, replaced by a newer one, used).
   */
  async refusal(token: string): Promise<'expired' | 'invalid'> {
    const row = await this.db
      .selectFrom('magic_links')
      .select(['used_at', 'expires_at'])
      .where('token_hash', '=', sha256Hex(token))
      .executeTakeFirst();
    return row && row.used_at === null && row.expires_at <= new Date().toISOString() ? 'expired' : 'invalid';
  }

  /** Drops links that can no longer be used. */
  async prune(): Promise<void> {
    await this.db.deleteFrom('magic_links').where('expires_at', '<', new Date().toISOString()).execute();
  }
}
