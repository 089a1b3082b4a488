import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`); CHROMIUM_PATH overrides. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Screenshots land here (gitignored); CI keeps the folder as an artifact. */
export const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'browser');

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM_PATH);
}

export interface BrowserSession {
  browser: BrowserContext;
  page: Page;
  /** Console errors and uncaught page errors seen so far, as text. */
  problems: string[];
  /** Full page unless `fullPage: false` (the voice list is hundreds of cards tall: the viewport tells enough). */
  screenshot(name: string, options?: { fullPage?: boolean }): Promise<string>;
  close(): Promise<void>;
}

/**
 * Headless Chromium with a fresh profile and none of its calls home (this machine has no network beyond
 * loopback; without these flags Chromium keeps trying and logging failures).
 */
export async function launch(
  options: { viewport?: { width: number; height: number }; permissions?: string[] } = {},
): Promise<BrowserSession> {
  const profile = mkdtempSync(join(tmpdir(), 'voxsmith-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
      // A fake microphone (a beep) so recording can be exercised without hardware or a prompt.
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
    ],
    viewport: options.viewport ?? { width: 1280, height: 900 },
    permissions: options.permissions,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  // Chromium logs every 4xx answer as a console error, even when the page asked on purpose and shows the refusal
  // (a used sign-in link, a call without a key). Those answers to the page's own fetch() calls are expected;
  // a 4xx for a script, style or image, any 5xx, CSP refusals and script errors still count.
  const answeredByPage = new Set<string>();
  page.on('response', (response) => {
    const type = response.request().resourceType();
    if ((type === 'fetch' || type === 'xhr') && response.status() >= 400 && response.status() < 500) answeredByPage.add(response.url());
  });
  const pending: Array<{ text: string; url: string }> = [];
  const onConsole = (msg: ConsoleMessage) => {
    if (msg.type() === 'error') pending.push({ text: msg.text(), url: msg.location().url });
  };
  page.on('console', onConsole);
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  const expectedRefusal = (p: { text: string; url: string }) =>
    /^Failed to load resource: the server responded with a status of 4\d\d\b/.test(p.text) && answeredByPage.has(p.url);
  mkdirSync(ARTIFACTS, { recursive: true });
  return {
    browser: context,
    page,
    // Read at the end of a test: by then each console line has met the response it reports.
    get problems() {
      return [...pending.filter((p) => !expectedRefusal(p)).map((p) => `console: ${p.text} (${p.url})`), ...problems];
    },
    async screenshot(name: string, options: { fullPage?: boolean } = {}) {
      const path = join(ARTIFACTS, `${name}.png`);
      await page.screenshot({ path, fullPage: options.fullPage ?? true });
      return path;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export type { Browser };
