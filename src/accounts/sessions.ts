import type { Db } from '../store/database.ts';
import type { SharedState } from '../store/shared-state/shared-state.ts';
import { randomToken, sha256Hex } from './secrets.ts';

export interface ActiveSession {
  idHash: string;
  userId: string;
}

const TOUCH_INTERVAL_MS = 60_000;

/** Cookie sessions: a random id given to the browser, only its digest stored, idle and absolute expiry. */
export class SessionService {
  constructor(
    private readonly db: Db,
    private readonly idleMs: number,
    private readonly maxMs: number,
    /** Sign-outs are broadcast here so every node closes the session's open streams at once. */
    private readonly events: Pick<SharedState, 'publish'>,
  ) {}

  get maxAgeSeconds(): number {
    return Math.floor(this.maxMs / 1000);
  }

  async create(userId: string): Promise<string> {
    const id = randomToken(32);
    const now = new Date();
    await this.db
      .insertInto('sessions')
      .values({
        id_hash: sha256Hex(id),
        user_id: userId,
        created_at: now.toISOString(),
        last_seen_at: now.toISOString(),
        expires_at: new Date(now.getTime() + this.maxMs).toISOString(),
      })
      .execute();
    return id;
  }

  async resolve(id: string): Promise<ActiveSession | null> {
    const idHash = sha256Hex(id);
    const row = await this.db.selectFrom('sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
    if (!row) return null;
    const now = Date.now();
    if (!this.live(row, now)) {
      await this.db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
      return null;
    }
    // Refreshing the idle clock at most once a minute keeps reads from turning into writes.
    if (Date.parse(row.last_seen_at) + TOUCH_INTERVAL_MS <= now) {
      await this.db
        .updateTable('sessions')
        .set({ last_seen_at: new Date(now).toISOString() })
        .where('id_hash', '=', idHash)
        .execute();
    }
    return { idHash, userId: row.user_id };
  }

  /** Whether a session (by digest) still exists and has not expired; for long-lived streams. */
  async isActive(idHash: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('sessions')
      .select(['expires_at', 'last_seen_at'])
      .where('id_hash', '=', idHash)
      .executeTakeFirst();
    return row !== undefined && this.live(row, Date.now());
  }

  /** Within both the absolute lifetime and the idle timeout. */
  private live(row: { expires_at: string; last_seen_at: string }, now: number): boolean {
    return Date.parse(row.expires_at) > now && Date.parse(row.last_seen_at) + this.idleMs > now;
  }

  /** Ends the session (sign-out) and tells every node, so streams opened with it close at once. */
  async destroy(idHash: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
    await this.events.publish({ type: 'session-ended', idHash });
  }
}
