import type { Db } from '../store/database.ts';

/**
 * Who operates the service (installs and removes voices): the first account of the install, and the accounts
 * ADMIN_EMAILS names. "First" is the oldest account, read each time rather than stored: no flag to migrate,
 * no race between two first sign-ins, and an install that existed before this rule gets its first user as
 * operator too.
 */
export class OperatorPolicy {
  private readonly adminEmails: ReadonlySet<string>;

  constructor(
    private readonly db: Db,
    adminEmails: readonly string[],
  ) {
    this.adminEmails = new Set(adminEmails.map((e) => e.toLowerCase()));
  }

  async isOperator(user: { id: string; email: string }): Promise<boolean> {
    if (this.adminEmails.has(user.email.toLowerCase())) return true;
    const first = await this.db.selectFrom('users').select('id').orderBy('created_at').orderBy('id').limit(1).executeTakeFirst();
    return first?.id === user.id;
  }
}
