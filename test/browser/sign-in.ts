import type { Page } from 'playwright-core';
import type { BrowserServer } from './harness.ts';

/**
 * Signs `email` in as a person does: the sign-in form, "Check your mail", the link from the SMTP sink and the
 * verify page's button; returns once the Playground is shown. `base`: the address the browser uses (the
 * server's own by default).
 */
export async function signIn(page: Page, server: BrowserServer, email: string, base = server.base): Promise<void> {
  const before = server.mail.messages.length;
  await page.goto(base + '/');
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
  await page.getByRole('heading', { level: 1, name: 'Check your mail' }).waitFor();
  const token = await server.mail.tokenFor(email, before);
  await page.goto(`${base}/verify?token=${token}`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Playground' }).waitFor();
}
