// Who pays for Wyoming: the protocol has no authentication, so its use is billed to one API key, connected from
// the dashboard (kept in the database, so every node bills the same key and a restart keeps it) or fixed by
// WYOMING_API_KEY for headless set-ups. Also the log of the last requests it served, for the dashboard.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { maskKey } from '../accounts/api-key-format.ts';
import { AppError } from '../errors.ts';
import type { Db } from '../store/database.ts';
import type { Database } from '../store/schema.ts';

interface WyomingLinkTable {
  id: string;
  user_id: string;
  key_id: string;
  connected_at: string;
}

interface WyomingRequestsTable {
  id: string;
  key_id: string | null;
  served_at: string;
  client: string;
  voice_id: string | null;
  characters: number;
  audio_ms: number;
  outcome: string;
}

type WyomingTables = { wyoming_link: WyomingLinkTable; wyoming_requests: WyomingRequestsTable };

/** The one row of wyoming_link. */
const LINK_ID = 'wyoming';
/** Requests kept for the dashboard: the newest ones. */
export const KEPT_REQUESTS = 50;

export interface WyomingPayer {
  userId: string;
  keyId: string;
}

export interface WyomingConnection extends WyomingPayer {
  keyName: string;
  maskedKey: string;
  connectedAt: string | null;
  /** `environment`: WYOMING_API_KEY, which the dashboard cannot change. */
  source: 'dashboard' | 'environment';
}

export interface WyomingRequestEntry {
  keyId: string | null;
  client: string;
  voiceId: string | null;
  characters: number;
  audioSeconds: number;
  /** `spoken`, or the error code it was answered with. */
  outcome: string;
}

export interface WyomingServed extends Omit<WyomingRequestEntry, 'keyId'> {
  at: string;
}

export class WyomingLink {
  private readonly db: Kysely<Database & WyomingTables>;

  constructor(
    db: Db,
    /** The key of WYOMING_API_KEY, already checked; it wins over the dashboard's choice. */
    private readonly fixed: WyomingPayer | null,
  ) {
    this.db = db.withTables<WyomingTables>();
  }

  /** Whether WYOMING_API_KEY decides (the dashboard then only shows it). */
  get fixedByEnvironment(): boolean {
    return this.fixed !== null;
  }

  /** The key Wyoming bills now, with its name; null when none is connected or the connected key was revoked. */
  async current(): Promise<WyomingConnection | null> {
    const query = this.db
      .selectFrom('api_keys')
      .select(['api_keys.id', 'api_keys.user_id', 'api_keys.name', 'api_keys.last4'])
      .where('api_keys.revoked_at', 'is', null);
    if (this.fixed) {
      const row = await query.where('api_keys.id', '=', this.fixed.keyId).executeTakeFirst();
      return row
        ? { keyId: row.id, userId: row.user_id, keyName: row.name, maskedKey: maskKey(row.last4), connectedAt: null, source: 'environment' }
        : null;
    }
    const row = await query
      .innerJoin('wyoming_link', 'wyoming_link.key_id', 'api_keys.id')
      .select('wyoming_link.connected_at')
      .where('wyoming_link.id', '=', LINK_ID)
      .executeTakeFirst();
    return row
      ? {
          keyId: row.id,
          userId: row.user_id,
          keyName: row.name,
          maskedKey: maskKey(row.last4),
          connectedAt: row.connected_at,
          source: 'dashboard',
        }
      : null;
  }

  /**
   * Bills Wyoming to `keyId`, a live key of `userId`. Refused while WYOMING_API_KEY decides, and while another
   * account's live key is connected (its owner disconnects it first, or revokes it): one conditional upsert, so
   * two accounts connecting at once cannot both win.
   */
  async connect(userId: string, keyId: string): Promise<WyomingConnection> {
    if (this.fixed) throw new AppError('forbidden', 'WYOMING_API_KEY decides which key Wyoming bills; unset it to choose on the dashboard');
    const key = await this.db
      .selectFrom('api_keys')
      .select(['id', 'scopes'])
      .where('id', '=', keyId)
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (!key) throw new AppError('key_not_found', `No active key "${keyId.slice(0, 100)}" of yours`);
    // Wyoming only speaks: a key without the speech scope would be refused on every request.
    if (!key.scopes.split(' ').includes('speech'))
      throw new AppError('insufficient_scope', 'This key lacks the "speech" scope Wyoming needs to speak');
    const now = new Date().toISOString();
    const result = await this.db
      .insertInto('wyoming_link')
      .values({ id: LINK_ID, user_id: userId, key_id: keyId, connected_at: now })
      .onConflict((oc) =>
        oc
          .column('id')
          .doUpdateSet({ user_id: userId, key_id: keyId, connected_at: now })
          .where((eb) =>
            eb.or([
              eb('wyoming_link.user_id', '=', userId),
              eb.not(
                eb.exists(
                  eb
                    .selectFrom('api_keys')
                    .select('api_keys.id')
                    .whereRef('api_keys.id', '=', 'wyoming_link.key_id')
                    .where('api_keys.revoked_at', 'is', null),
                ),
              ),
            ]),
          ),
      )
      .executeTakeFirst();
    if ((result.numInsertedOrUpdatedRows ?? 0n) === 0n) {
      throw new AppError('forbidden', 'Wyoming is connected to a key of another account; its owner must disconnect it first');
    }
    const connection = await this.current();
    if (!connection) throw new AppError('key_not_found', 'The key was revoked meanwhile');
    return connection;
  }

  /** Disconnects Wyoming if it bills one of `userId`'s keys (or a revoked key); false when it bills another's. */
  async disconnect(userId: string): Promise<boolean> {
    if (this.fixed) throw new AppError('forbidden', 'WYOMING_API_KEY decides which key Wyoming bills; unset it to disconnect');
    const connection = await this.current();
    if (connection && connection.userId !== userId) return false;
    await this.db.deleteFrom('wyoming_link').where('id', '=', LINK_ID).execute();
    return true;
  }

  /** The payer of a synthesis now: WYOMING_API_KEY's key, else the connected one; null when none is usable. */
  async payer(): Promise<WyomingPayer | null> {
    const connection = await this.current();
    return connection ? { userId: connection.userId, keyId: connection.keyId } : null;
  }

  /** Logs one served (or refused) request, keeping the newest KEPT_REQUESTS. */
  async record(entry: WyomingRequestEntry): Promise<void> {
    await this.db
      .insertInto('wyoming_requests')
      .values({
        id: randomUUID(),
        key_id: entry.keyId,
        served_at: new Date().toISOString(),
        client: entry.client.slice(0, 64),
        voice_id: entry.voiceId?.slice(0, 200) ?? null,
        characters: entry.characters,
        audio_ms: Math.round(entry.audioSeconds * 1000),
        outcome: entry.outcome.slice(0, 64),
      })
      .execute();
    const oldest = await this.db
      .selectFrom('wyoming_requests')
      .select('served_at')
      .orderBy('served_at', 'desc')
      .offset(KEPT_REQUESTS - 1)
      .limit(1)
      .executeTakeFirst();
    if (oldest) await this.db.deleteFrom('wyoming_requests').where('served_at', '<', oldest.served_at).execute();
  }

  /**
   * The newest requests `userId` may see: those billed to their keys, and those refused for want of a key
   * (which show that Home Assistant is trying). Another account's requests stay theirs.
   */
  async recent(userId: string, limit = 20): Promise<WyomingServed[]> {
    const rows = await this.db
      .selectFrom('wyoming_requests')
      .leftJoin('api_keys', 'api_keys.id', 'wyoming_requests.key_id')
      .select([
        'wyoming_requests.served_at',
        'wyoming_requests.client',
        'wyoming_requests.voice_id',
        'wyoming_requests.characters',
        'wyoming_requests.audio_ms',
        'wyoming_requests.outcome',
      ])
      .where((eb) => eb.or([eb('wyoming_requests.key_id', 'is', null), eb('api_keys.user_id', '=', userId)]))
      .orderBy('wyoming_requests.served_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      at: r.served_at,
      client: r.client,
      voiceId: r.voice_id,
      characters: Number(r.characters),
      audioSeconds: Number(r.audio_ms) / 1000,
      outcome: r.outcome,
    }));
  }
}
