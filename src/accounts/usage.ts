import { sql } from 'kysely';
import type { Db } from '../store/database.ts';

export interface UsageRow {
  day: string;
  key_id: string | null;
  characters: number;
  requests: number;
}

/** Characters synthesized, counted per user, key and UTC day with one atomic upsert per request. */
export class UsageService {
  constructor(private readonly db: Db) {}

  async record(userId: string, keyId: string | null, characters: number): Promise<void> {
    const day = new Date().toISOString().slice(0, 10);
    await this.db
      .insertInto('usage')
      .values({ user_id: userId, key_id: keyId ?? '', day, chars: characters, requests: 1 })
      .onConflict((oc) =>
        oc.columns(['user_id', 'key_id', 'day']).doUpdateSet({
          chars: sql<number>`usage.chars + excluded.chars`,
          requests: sql<number>`usage.requests + 1`,
        }),
      )
      .execute();
  }

  async forUser(userId: string, sinceDay: string): Promise<UsageRow[]> {
    const rows = await this.db
      .selectFrom('usage')
      .select(['day', 'key_id', 'chars', 'requests'])
      .where('user_id', '=', userId)
      .where('day', '>=', sinceDay)
      .orderBy('day', 'asc')
      .execute();
    return rows.map((r) => ({ day: r.day, key_id: r.key_id === '' ? null : r.key_id, characters: Number(r.chars), requests: Number(r.requests) }));
  }
}
