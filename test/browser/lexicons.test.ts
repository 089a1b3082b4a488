import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { launch, type BrowserSession } from './chromium.ts';
import { browserSkip, startBrowserServer, type BrowserServer } from './harness.ts';
import { signIn } from './sign-in.ts';

// The lexicon editor in Debian's Chromium, as a person uses it: create a lexicon, add, hear, edit and delete
// rules, make it the default, import a PLS file (and see a malformed one refused with its position).
const skip = browserSkip();

const EMAIL = 'lex@example.com';
const UI_TIMEOUT = 20_000;

let server: BrowserServer;
let b: BrowserSession;
let page: Page;

before(async () => {
  if (skip) return;
  server = await startBrowserServer();
  b = await launch();
  page = b.page;
  page.setDefaultTimeout(UI_TIMEOUT);
});

after(async () => {
  if (skip) return;
  await b?.close();
  await server?.close();
});

/** Seconds of audio /v1/speak gives for `text` with these lexicons, decoded by the browser (session cookie). */
function spokenSeconds(text: string, lexicons: string[]): Promise<number> {
  return page.evaluate<number>(`(async () => {
    const res = await fetch('/v1/speak', { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: ${JSON.stringify(text)}, lexicons: ${JSON.stringify(lexicons)}, format: 'wav' }) });
    if (!res.ok) throw new Error(await res.text());
    const ctx = new OfflineAudioContext(1, 1, 24000);
    return (await ctx.decodeAudioData(await res.arrayBuffer())).duration;
  })()`);
}

const PLS = `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">
  <lexeme><grapheme>NASA</grapheme><alias>National Aeronautics and Space Administration</alias></lexeme>
  <lexeme><grapheme>GIF</grapheme><phoneme>dʒɪf</phoneme></lexeme>
</lexicon>`;

describe('lexicon editor in Chromium', { skip }, () => {
  test('sign in and open Lexicons from the navigation', async () => {
    await signIn(page, server, EMAIL);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Lexicons', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Lexicons' }).waitFor();
    await page.getByText('None yet.').waitFor();
  });

  test('create a lexicon, add a rule, hear it', async () => {
    await page.getByLabel('Name').fill('acronyms');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { level: 2, name: 'acronyms' }).waitFor();
    const add = page.getByRole('form', { name: 'Add rule' });
    await add.getByLabel('Written').fill('WHO');
    await add.getByLabel('Spoken as').fill('World Health Organization');
    await add.getByRole('button', { name: 'Add rule' }).click();
    const row = page.getByRole('row', { name: /WHO/ });
    await row.getByRole('cell', { name: 'World Health Organization' }).waitFor();
    await b.screenshot('lexicons-01-rule');

    await row.getByRole('button', { name: 'Hear it: “WHO”' }).click();
    await page.waitForSelector('.rules .play-button:is([data-state="ended"],[data-state="error"])');
    assert.equal(await row.locator('.play-button').getAttribute('data-state'), 'ended', await row.innerText());
    // The same request the button made, decoded by the browser.
    assert.ok((await spokenSeconds('WHO', ['acronyms'])) > 0.2);
    // With the rule it says the phrase (as long as the phrase itself), not the letters W H O it says without.
    const plain = await spokenSeconds('WHO', []);
    const withRule = await spokenSeconds('WHO', ['acronyms']);
    const phrase = await spokenSeconds('World Health Organization', []);
    assert.ok(
      Math.abs(withRule - phrase) < 0.05 && Math.abs(plain - phrase) > 0.15,
      `with the rule ${withRule} s, without ${plain} s, the phrase ${phrase} s`,
    );
  });

  test('edit a rule, make the lexicon the default, then delete the rule', async () => {
    const row = page.getByRole('row', { name: /WHO/ });
    await row.getByRole('button', { name: 'Edit “WHO”' }).click();
    const edit = page.getByRole('form', { name: 'Save rule' });
    await edit.getByLabel('Spoken as').fill('the World Health Organisation');
    await edit.getByRole('button', { name: 'Save rule' }).click();
    await page.getByRole('cell', { name: 'the World Health Organisation' }).waitFor();

    await page.getByRole('button', { name: 'Make default' }).click();
    await page.getByRole('button', { name: 'Stop using as default' }).waitFor();
    const listed = await page.evaluate<{ name: string; default: boolean }[]>(
      `fetch('/api/lexicons').then((r) => r.json()).then((b) => b.lexicons)`,
    );
    assert.deepEqual(
      listed.map((l) => [l.name, l.default]),
      [['acronyms', true]],
    );
    // The default applies to a request that names no lexicon.
    const byDefault = await page.evaluate<{ normalized: string }>(
      `fetch('/v1/phonemize', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"WHO"}' }).then((r) => r.json())`,
    );
    assert.match(byDefault.normalized, /World Health Organisation/);

    await page.getByRole('button', { name: 'Delete “WHO”' }).click();
    await page.getByText('No rules yet.').waitFor();
  });

  test('import a PLS file; a malformed one is refused naming the line and column', async () => {
    await page.getByLabel('Name').fill('brands');
    await page
      .getByLabel('Import a PLS file')
      .setInputFiles({ name: 'brands.pls', mimeType: 'application/pls+xml', buffer: Buffer.from(PLS) });
    await page.getByText('Imported 2 rules into “brands”.').waitFor();
    await page.getByRole('heading', { level: 2, name: 'brands' }).waitFor();
    await page.getByRole('cell', { name: 'National Aeronautics and Space Administration' }).waitFor();
    await page.getByRole('cell', { name: '/dʒɪf/ (IPA)' }).waitFor();
    await b.screenshot('lexicons-02-imported');

    await page.getByLabel('Import a PLS file').setInputFiles({
      name: 'broken.pls',
      mimeType: 'application/pls+xml',
      buffer: Buffer.from('<lexicon>\n<lexeme><grapheme>a</grapheme>\n</lexicon>'),
    });
    const alert = page.getByRole('alert').filter({ hasText: /invalid at line 2, column 9/ });
    await alert.waitFor();
  });

  test('delete a lexicon asks first', async () => {
    await page.getByRole('button', { name: 'Delete lexicon' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Lexicon “brands” deleted.').waitFor();
    const names = await page.evaluate<string[]>(`fetch('/api/lexicons').then((r) => r.json()).then((b) => b.lexicons.map((l) => l.name))`);
    assert.deepEqual(names, ['acronyms']);
  });
});
