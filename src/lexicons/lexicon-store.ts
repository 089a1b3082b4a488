// Users' pronunciation lexicons in the database (SQLite or PostgreSQL). Every query is scoped by owner, so
// another account's lexicon is never read, changed or counted.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { lockUserForCap } from '../accounts/user-lock.ts';
import { AppError } from '../errors.ts';
import type { Lexicon, LexiconRule, LexiconSummary } from '../schemas/lexicons.ts';
import type { Db, Dialect } from '../store/database.ts';
import type { Database } from '../store/schema.ts';

export interface LexiconsTable {
  id: string;
  owner_id: string;
  name: string;
  /** JSON array of rules. */
  rules: string;
  rule_count: number;
  /** 1 for the account's default lexicon (at most one per account, by a partial unique index). */
  is_default: number;
  created_at: string;
  updated_at: string;
}

// A type alias (not an interface): Kysely's withTables wants an indexable record.
type LexiconTables = { lexicons: LexiconsTable };

function toSummary(row: Omit<LexiconsTable, 'rules'>): LexiconSummary {
  return {
    name: row.name,
    default: Number(row.is_default) === 1,
    rule_count: Number(row.rule_count),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function toLexicon(row: LexiconsTable): Lexicon {
  const { rule_count: _count, ...summary } = toSummary(row);
  return { ...summary, rules: JSON.parse(row.rules) as LexiconRule[] };
}

/** A unique index refused the write (a name taken meanwhile by a parallel request). */
function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return (
    e.code === '23505' ||
    e.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    (typeof e.message === 'string' && /UNIQUE constraint failed/.test(e.message))
  );
}

type LexiconDb = Kysely<Database & LexiconTables>;

/** The id of the owner's lexicon of that name, if they have one. */
async function idOf(db: LexiconDb, ownerId: string, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('lexicons').select('id').where('owner_id', '=', ownerId).where('name', '=', name).executeTakeFirst();
  return row?.id;
}

/** The owner has no default lexicon any more (before another becomes it: one default per account). */
async function clearDefault(db: LexiconDb, ownerId: string): Promise<void> {
  await db.updateTable('lexicons').set({ is_default: 0 }).where('owner_id', '=', ownerId).where('is_default', '=', 1).execute();
}

const taken = (name: string): AppError => new AppError('lexicon_exists', `You already have a lexicon named "${name}"`);

export class LexiconStore {
  private readonly db: LexiconDb;

  constructor(
    db: Db,
    private readonly dialect: Dialect,
    private readonly maxLexicons: number,
  ) {
    this.db = db.withTables<LexiconTables>();
  }

  async list(ownerId: string): Promise<LexiconSummary[]> {
    const rows = await this.db
      .selectFrom('lexicons')
      .select(['id', 'owner_id', 'name', 'rule_count', 'is_default', 'created_at', 'updated_at'])
      .where('owner_id', '=', ownerId)
      .orderBy('name')
      .execute();
    return rows.map(toSummary);
  }

  async get(ownerId: string, name: string): Promise<Lexicon | null> {
    const row = await this.db
      .selectFrom('lexicons')
      .selectAll()
      .where('owner_id', '=', ownerId)
      .where('name', '=', name)
      .executeTakeFirst();
    return row ? toLexicon(row) : null;
  }

  /** The named lexicons that exist, in any order. */
  async getMany(ownerId: string, names: readonly string[]): Promise<Lexicon[]> {
    if (names.length === 0) return [];
    const rows = await this.db
      .selectFrom('lexicons')
      .selectAll()
      .where('owner_id', '=', ownerId)
      .where('name', 'in', [...names])
      .execute();
    return rows.map(toLexicon);
  }

  async getDefault(ownerId: string): Promise<Lexicon | null> {
    const row = await this.db
      .selectFrom('lexicons')
      .selectAll()
      .where('owner_id', '=', ownerId)
      .where('is_default', '=', 1)
      .executeTakeFirst();
    return row ? toLexicon(row) : null;
  }

  /**
   * Writes a lexicon's rules. `create` refuses a taken name (409), `replace` answers null when there is no such
   * lexicon, `upsert` does either (PLS import). A new lexicon counts against the account's cap behind the owner's
   * lock, so parallel creations cannot pass it together. `makeDefault` undefined leaves the flag as it is.
   */
  async put(
    ownerId: string,
    name: string,
    rules: LexiconRule[],
    options: { mode: 'create' | 'replace' | 'upsert'; makeDefault?: boolean },
  ): Promise<{ lexicon: Lexicon; created: boolean } | null> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        await lockUserForCap(trx, this.dialect, ownerId);
        const now = new Date().toISOString();
        const existing = await idOf(trx, ownerId, name);
        if (existing && options.mode === 'create') throw taken(name);
        if (!existing && options.mode === 'replace') return null;
        if (options.makeDefault === true) await clearDefault(trx, ownerId);
        const json = JSON.stringify(rules);
        if (existing) {
          const flag = options.makeDefault === undefined ? {} : { is_default: options.makeDefault ? 1 : 0 };
          await trx
            .updateTable('lexicons')
            .set({ rules: json, rule_count: rules.length, updated_at: now, ...flag })
            .where('id', '=', existing)
            .execute();
        } else {
          const held = await trx
            .selectFrom('lexicons')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('owner_id', '=', ownerId)
            .executeTakeFirstOrThrow();
          if (Number(held.n) >= this.maxLexicons)
            throw new AppError('quota_exceeded', `This account holds ${this.maxLexicons} lexicons, the limit; delete one first`);
          await trx
            .insertInto('lexicons')
            .values({
              id: randomUUID(),
              owner_id: ownerId,
              name,
              rules: json,
              rule_count: rules.length,
              is_default: options.makeDefault ? 1 : 0,
              created_at: now,
              updated_at: now,
            })
            .execute();
        }
        const row = await trx
          .selectFrom('lexicons')
          .selectAll()
          .where('owner_id', '=', ownerId)
          .where('name', '=', name)
          .executeTakeFirstOrThrow();
        return { lexicon: toLexicon(row), created: !existing };
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw taken(name);
      throw err;
    }
  }

  /**
   * Renames and/or sets the default flag; null when the owner has no lexicon of that name. Behind the owner's lock,
   * as every write of their lexicons: two "make this the default" at once would otherwise both clear the old
   * default and both set theirs, and the one-default index would refuse the second with a 500.
   */
  async update(ownerId: string, name: string, change: { name?: string; default?: boolean }): Promise<Lexicon | null> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        await lockUserForCap(trx, this.dialect, ownerId);
        const id = await idOf(trx, ownerId, name);
        if (id === undefined) return null;
        if (change.default === true) await clearDefault(trx, ownerId);
        const set: Partial<LexiconsTable> = {};
        if (change.name !== undefined && change.name !== name) {
          if ((await idOf(trx, ownerId, change.name)) !== undefined) throw taken(change.name);
          set.name = change.name;
        }
        if (change.default !== undefined) set.is_default = change.default ? 1 : 0;
        if (Object.keys(set).length > 0)
          await trx
            .updateTable('lexicons')
            .set({ ...set, updated_at: new Date().toISOString() })
            .where('id', '=', id)
            .execute();
        return toLexicon(await trx.selectFrom('lexicons').selectAll().where('id', '=', id).executeTakeFirstOrThrow());
      });
    } catch (err) {
      if (isUniqueViolation(err) && change.name !== undefined) throw taken(change.name);
      throw err;
    }
  }

  async delete(ownerId: string, name: string): Promise<boolean> {
    const result = await this.db.deleteFrom('lexicons').where('owner_id', '=', ownerId).where('name', '=', name).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
