import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, type BrowserSession } from './chromium.ts';
import { browserSkip, startBrowserServer, type BrowserServer } from './harness.ts';

// A developer's machine: no SMTP server, so the sign-in link goes to DATA_DIR/outbox/ and the page says so.
const skip = browserSkip();

let server: BrowserServer;
let b: BrowserSession;

before(async () => {
  if (skip) return;
  server = await startBrowserServer({ SMTP_URL: '' });
  b = await launch({ viewport: { width: 390, height: 844 } });
  b.page.setDefaultTimeout(20_000);
});

after(async () => {
  if (skip) return;
  await b?.close();
  await server?.close();
});

test('local mode: the page names the outbox, and the link written there signs in', { skip }, async () => {
  const { page } = b;
  await page.goto(server.base + '/');
  await page.getByLabel('E-mail address').fill('dev@example.com');
  await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
  const note = page.getByTestId('outbox-note');
  await note.waitFor();
  const outbox = join(server.dataDir, 'outbox');
  assert.match(await note.innerText(), /no mail server/i);
  assert.ok((await note.innerText()).includes(`${outbox}/`), await note.innerText());
  await b.screenshot('local-01-check-your-outbox');

  const files = readdirSync(outbox).filter((f) => f.endsWith('.eml'));
  assert.equal(files.length, 1);
  const link = /https?:\/\/\S+\/verify\?token=[A-Za-z0-9_-]+/.exec(readFileSync(join(outbox, files[0]), 'utf8'))?.[0];
  assert.ok(link, 'the outbox mail holds the link');
  await page.goto(link);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Playground' }).waitFor();
  // On a phone the account sits in the header's menu.
  await page.getByRole('button', { name: 'Menu' }).click();
  await page.getByText('dev@example.com').waitFor();
  await b.screenshot('local-02-signed-in-phone');
  assert.deepEqual(b.problems, []);
});
