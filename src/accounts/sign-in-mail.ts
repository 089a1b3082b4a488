import type { Mail } from './mailer.ts';

/** The sign-in mail's wording, in one place: plain text for mail readers and the local-mode log, and HTML. */
export function signInMail(to: string, link: URL, minutes: number): Mail {
  const validity = `The link works once and expires in ${minutes} minutes. If you did not ask for it, ignore this mail.`;
  return {
    to,
    subject: 'Your Voxsmith sign-in link',
    text: `Sign in to Voxsmith:\n\n${link.href}\n\n${validity}\n`,
    link: link.href,
    html: `<p>Sign in to Voxsmith:</p><p><a href="${link.href}">Sign in</a></p><p>${validity}</p>`,
  };
}
