import type { Db } from '../store/database.ts';
import { newId } from './secrets.ts';

export interface User {
  id: string;
  email: string;
  plan: string;
}

export class UserService {
  constructor(private readonly db: Db) {}

  async findById(id: string): Promise<User | null> {
    const row = await this.db.selectFrom('users').select(['id', 'email', 'plan']).where('id', '=', id).executeTakeFirst();
    return row ?? null;
  }

  /** When the account was created (ISO 8601), or null for no such account. */
  async createdAt(id: string): Promise<string | null> {
    const row = await this.db.selectFrom('users').select('created_at').where('id', '=', id).executeTakeFirst();
    return row?.created_at ?? null;
  }

  /** The user for a verified address, created on first sign-in. Safe when two verifies race. */
  async findOrCreate(email: string): Promise<User> {
    await this.db
      .insertInto('users')
      .values({ id: newId('usr'), email, plan: 'free', created_at: new Date().toISOString() })
      .onConflict((oc) => oc.column('email').doNothing())
      .execute();
    return this.db.selectFrom('users').select(['id', 'email', 'plan']).where('email', '=', email).executeTakeFirstOrThrow();
  }
}
