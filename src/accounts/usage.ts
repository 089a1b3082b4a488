import { sql } from 'kysely';
import type { Db } from '../store/database.ts';

export interface UsageReport {
  /** First UTC day counted, YYYY-MM-DD. */
  since: string;
  days: Array<{ day: string; characters: number; requests: number }>;
  /** Per key; `key_id` null is use through the dashboard session. */
  keys: Array<{ key_id: string | null; name: string; characters: number; requests: number }>;
}

const DAY_MS = 86_400_000;

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

  /** Totals of the last `days` UTC days (today included), per day and per key, summed by the database. */
  async report(userId: string, days: number): Promise<UsageReport> {
    const since = new Date(Date.now() - (days - 1) * DAY_MS).toISOString().slice(0, 10);
    const [byDay, byKey] = await Promise.all([
      this.db
        .selectFrom('usage')
        .select((eb) => ['day', eb.fn.sum<number | string>('chars').as('characters'), eb.fn.sum<number | string>('requests').as('requests')])
        .where('user_id', '=', userId)
        .where('day', '>=', since)
        .groupBy('day')
        .orderBy('day', 'asc')
        .execute(),
      this.db
        .selectFrom('usage')
        .leftJoin('api_keys', 'api_keys.id', 'usage.key_id')
        .select((eb) => ['usage.key_id', 'api_keys.name', eb.fn.sum<number | string>('usage.chars').as('characters'), eb.fn.sum<number | string>('usage.requests').as('requests')])
        .where('usage.user_id', '=', userId)
        .where('usage.day', '>=', since)
        .groupBy(['usage.key_id', 'api_keys.name'])
        .orderBy('usage.key_id', 'asc')
        .execute(),
    ]);
    return {
      since,
      // PostgreSQL sums bigints as numeric, which pg hands over as strings.
      days: byDay.map((r) => ({ day: r.day, characters: Number(r.characters), requests: Number(r.requests) })),
      keys: byKey.map((r) => ({
        key_id: r.key_id === '' ? null : r.key_id,
        name: r.key_id === '' ? 'Dashboard (session)' : (r.name ?? 'deleted key'),
        characters: Number(r.characters),
        requests: Number(r.requests),
      })),
    };
  }
}
