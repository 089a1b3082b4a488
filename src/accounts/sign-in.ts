import type { MagicLinkService } from './magic-links.ts';
import type { Mailer } from './mailer.ts';
import { signInMail } from './sign-in-mail.ts';

// Deliberately loose: one @, no spaces, a dot in the domain. The mail server is the real judge.
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;

/** The address as stored and compared (trimmed, lower case), or null when it cannot be one. */
export function normalizeEmail(raw: string): string | null {
  const email = raw.trim().toLowerCase();
  return email.length <= 254 && EMAIL.test(email) ? email : null;
}

/** The link was issued but the mail server did not take the mail, so nobody has it. */
export class SignInMailError extends Error {
  /** What the mail transport said. */
  readonly reason: string;

  constructor(cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`sending the sign-in mail failed: ${reason}`, { cause });
    this.name = 'SignInMailError';
    this.reason = reason;
  }
}

/** Sign-in by e-mail: issues a one-time link and mails it to the address. */
export class SignInService {
  /** The dashboard page that consumes the token (PUBLIC_URL may carry a path prefix, hence the relative URL). */
  private readonly verifyPage: URL;

  constructor(
    private readonly links: MagicLinkService,
    private readonly mailer: Mailer,
    publicUrl: URL,
  ) {
    this.verifyPage = new URL('verify', publicUrl.href.endsWith('/') ? publicUrl : `${publicUrl.href}/`);
  }

  /** Minutes a link stays valid, as the mail and the answer to the request say. */
  get linkMinutes(): number {
    return Math.round(this.links.ttlMs / 60_000);
  }

  /**
   * `email` must be normalized (normalizeEmail). `base`: the origin the person asked from, when the link must lead
   * back there (no PUBLIC_URL); PUBLIC_URL's verify page otherwise. Throws SignInMailError when the mail could not
   * be sent.
   */
  async requestSignIn(email: string, base?: string | null): Promise<void> {
    const token = await this.links.issue(email);
    const link = base ? new URL('/verify', base) : new URL(this.verifyPage);
    link.searchParams.set('token', token);
    try {
      await this.mailer.send(signInMail(email, link, this.linkMinutes));
    } catch (err) {
      throw new SignInMailError(err);
    }
  }
}
