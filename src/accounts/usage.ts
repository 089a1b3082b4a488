import { sql } from 'kysely';
import type { Db } from '../store/database.ts';
import { AppError } from '../errors.ts';

/** UTC days, YYYY-MM-DD, both included. */
export interface DayRange {
  since: string;
  until: string;
}

export interface UsageReport extends DayRange {
  days: Array<{ day: string; characters: number; requests: number }>;
  /** Per key; `key_id` null is use through the dashboard session. */
  keys: Array<{ key_id: string | null; name: string; revoked: boolean; characters: number; requests: number }>;
}

/** One day of one key, the rows of a CSV export. */
export interface UsageRow {
  day: string;
  key_id: string | null;
  name: string;
  revoked: boolean;
  characters: number;
  requests: number;
}

const DAY_MS = 86_400_000;

/** Midnight UTC of a YYYY-MM-DD day; a day that does not exist (2026-02-30) is a validation error. */
function dayMs(day: string, field: string): number {
  const ms = Date.parse(`${day}T00:00:00Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== day)
    throw new AppError('validation', `${field} is not a day: ${day}`);
  return ms;
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

  /**
   * The days a report covers: `from`–`to` (to defaults to today), else the last `days` days (today included).
   * A day that does not exist, an end before the start or a span over `maxDays` is refused.
   */
  static range(query: { days?: number; from?: string; to?: string }, maxDays: number, now = Date.now()): DayRange {
    const today = new Date(now).toISOString().slice(0, 10);
    if (query.from === undefined && query.to === undefined) {
      const days = Math.min(maxDays, Math.max(1, query.days ?? 30));
      return { since: new Date(now - (days - 1) * DAY_MS).toISOString().slice(0, 10), until: today };
    }
    const until = query.to ?? today;
    const since = query.from ?? new Date(dayMs(until, 'to') - (maxDays - 1) * DAY_MS).toISOString().slice(0, 10);
    const span = (dayMs(until, 'to') - dayMs(since, 'from')) / DAY_MS + 1;
    if (span < 1) throw new AppError('validation', 'from must not be after to');
    if (span > maxDays) throw new AppError('validation', `A usage report covers at most ${maxDays} days`);
    return { since, until };
  }

  /** Totals over a range of UTC days, per day and per key, summed by the database. */
  async report(userId: string, { since, until }: DayRange): Promise<UsageReport> {
    const [byDay, byKey] = await Promise.all([
      this.db
        .selectFrom('usage')
        .select((eb) => [
          'day',
          eb.fn.sum<number | string>('chars').as('characters'),
          eb.fn.sum<number | string>('requests').as('requests'),
        ])
        .where('user_id', '=', userId)
        .where('day', '>=', since)
        .where('day', '<=', until)
        .groupBy('day')
        .orderBy('day', 'asc')
        .execute(),
      this.db
        .selectFrom('usage')
        .leftJoin('api_keys', 'api_keys.id', 'usage.key_id')
        .select((eb) => [
          'usage.key_id',
          'api_keys.name',
          'api_keys.revoked_at',
          eb.fn.sum<number | string>('usage.chars').as('characters'),
          eb.fn.sum<number | string>('usage.requests').as('requests'),
        ])
        .where('usage.user_id', '=', userId)
        .where('usage.day', '>=', since)
        .where('usage.day', '<=', until)
        .groupBy(['usage.key_id', 'api_keys.name', 'api_keys.revoked_at'])
        .orderBy('usage.key_id', 'asc')
        .execute(),
    ]);
    return {
      since,
      until,
      // PostgreSQL sums bigints as numeric, which pg hands over as strings.
      days: byDay.map((r) => ({ day: r.day, characters: Number(r.characters), requests: Number(r.requests) })),
      keys: byKey.map((r) => ({ ...keyFields(r), characters: Number(r.characters), requests: Number(r.requests) })),
    };
  }

  /** Every day of every key in the range (days without use left out), oldest first: the CSV export. */
  async rows(userId: string, { since, until }: DayRange): Promise<UsageRow[]> {
    const rows = await this.db
      .selectFrom('usage')
      .leftJoin('api_keys', 'api_keys.id', 'usage.key_id')
      .select(['usage.day', 'usage.key_id', 'api_keys.name', 'api_keys.revoked_at', 'usage.chars', 'usage.requests'])
      .where('usage.user_id', '=', userId)
      .where('usage.day', '>=', since)
      .where('usage.day', '<=', until)
      .orderBy('usage.day', 'asc')
      .orderBy('usage.key_id', 'asc')
      .execute();
    return rows.map((r) => ({ day: r.day, ...keyFields(r), characters: Number(r.chars), requests: Number(r.requests) }));
  }
}

/** The key columns as the API shows them: the session's use under "Dashboard", a revoked key marked. */
function keyFields(r: { key_id: string; name: string | null; revoked_at: string | null }): {
  key_id: string | null;
  name: string;
  revoked: boolean;
} {
  if (r.key_id === '') return { key_id: null, name: 'Dashboard (session)', revoked: false };
  return { key_id: r.key_id, name: r.name ?? 'deleted key', revoked: r.name === null || r.revoked_at !== null };
}
