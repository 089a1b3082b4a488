import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, type BrowserSession } from './chromium.ts';
import { browserSkip, startBrowserServer, type BrowserServer } from './harness.ts';
import { signIn } from './sign-in.ts';
import { startCatalogServer, type CatalogServer } from '../helpers/voice-catalog-server.ts';

// A fresh install in Chromium: its first account is the operator, sees the hint with the button, installs a
// natural voice from the catalogue with a live progress bar, hears it, and removes it; a second account sees
// the hint as a sentence and no operator page. The catalogue is local, in Piper's real format, its model
// slowed down so the progress bar is seen moving.
const skip = browserSkip();
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let catalog: CatalogServer;
let server: BrowserServer;
let b: BrowserSession;
const voicesDir = mkdtempSync(join(tmpdir(), 'voxsmith-browser-voices-'));

before(async () => {
  if (skip) return;
  const model = '/piper/en/en_US/lessac/medium/en_US-lessac-medium.onnx';
  catalog = await startCatalogServer({
    piper: [
      { key: 'en_US-lessac-medium', paddingBytes: 1_500_000 },
      { key: 'en_US-ryan-high', paddingBytes: 1_500_000 },
      { key: 'de_DE-thorsten-medium' },
    ],
    throttleMs: { [model]: 60, '/piper/en/en_US/ryan/high/en_US-ryan-high.onnx': 60 },
  });
  server = await startBrowserServer({ VOICES_CATALOG_URL: catalog.catalogUrl, KOKORO_FILES_URL: catalog.kokoroUrl, VOICES_DIR: voicesDir });
  b = await launch();
  b.page.setDefaultTimeout(20_000);
});

after(async () => {
  if (skip) return;
  await b?.close();
  await server?.close();
  await catalog?.close();
  rmSync(voicesDir, { recursive: true, force: true });
});

async function axe(label: string): Promise<void> {
  const violations = await b.page.evaluate<Array<{ id: string; impact: string; nodes: string[] }>>(`(async () => {
    ${AXE_SOURCE}
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  })()`);
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(serious, [], `${label}: ${JSON.stringify(serious)}`);
}

test('the first account installs a natural voice with a live progress bar, plays it, and removes it', { skip }, async () => {
  const { page } = b;
  await signIn(page, server, 'owner@example.com');
  // No natural voice yet: the playground says so, and the operator gets the button.
  const hint = page.getByTestId('natural-hint');
  await hint.waitFor();
  await hint.getByRole('link', { name: 'Add a natural voice' }).click();
  await page.getByRole('heading', { level: 1, name: 'Natural voices' }).waitFor();
  assert.equal(
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Natural voices' }).getAttribute('aria-current'),
    'page',
  );

  // The catalogue opens on the browser's language; another language and a quality filter narrow it.
  const entry = page.locator('li.catalog-entry[data-name="en_US-lessac-medium"]');
  await entry.waitFor();
  assert.ok(
    !(await page.locator('li.catalog-entry[data-name="de_DE-thorsten-medium"]').count()),
    'German voices are not shown for an English browser',
  );
  await page.getByLabel('Quality').selectOption('high');
  await page.locator('li.catalog-entry[data-name="en_US-ryan-high"]').waitFor();
  assert.equal(await entry.count(), 0);
  await page.getByLabel('Quality').selectOption('');
  await axe('natural voices');
  await b.screenshot('natural-01-catalogue');

  await entry.getByRole('button', { name: 'Install en_US-lessac-medium' }).click();
  const bar = page.getByRole('progressbar', { name: 'Installing en_US-lessac-medium' });
  await bar.waitFor();
  // The bar moves while the file arrives.
  const values: number[] = [];
  for (let i = 0; i < 40 && (await bar.count()) > 0; i++) {
    const v = Number((await bar.getAttribute('value').catch(() => null)) ?? NaN);
    if (Number.isFinite(v)) values.push(v);
    await page.waitForTimeout(150);
  }
  assert.ok(new Set(values).size >= 2, `the progress bar moved: ${values.join(', ')}`);
  await b.screenshot('natural-02-installing');
  await page.getByRole('status').filter({ hasText: 'Installed en_US-lessac-medium' }).waitFor();
  await page.locator('.installed-voices li[data-name="en_US-lessac-medium"]').waitFor();

  // It plays at once, from the catalogue entry (the preview route, through the Piper model).
  const play = entry.getByRole('button', { name: /Play a preview of/ });
  await play.click();
  await page.waitForSelector(
    'li.catalog-entry[data-name="en_US-lessac-medium"] .play-button:is([data-state="ended"],[data-state="error"])',
  );
  assert.equal(await entry.locator('.play-button').getAttribute('data-state'), 'ended');

  // Everywhere else too: the voice list puts it first, and the hint is gone.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Voices', exact: true }).click();
  const first = page.locator('#voice-results li.voice').first();
  await first.waitFor();
  assert.equal(await first.getAttribute('data-voice-id'), 'piper-en-us-lessac-medium');
  assert.equal(await page.getByTestId('natural-hint').count(), 0);
  await b.screenshot('natural-03-voices');

  // Removed from the operator page: gone from the lists.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Natural voices' }).click();
  await page.getByRole('button', { name: 'Remove en_US-lessac-medium' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Remove voice' }).click();
  await page.getByRole('status').filter({ hasText: 'Removed en_US-lessac-medium' }).waitFor();
  const ids = await page.evaluate<string[]>(
    `(async () => (await (await fetch('/api/voices?engine=piper')).json()).voices.map((v) => v.id))()`,
  );
  assert.deepEqual(ids, []);
  assert.deepEqual(b.problems, []);
});

test('another account sees a sentence, not the button, and no operator page', { skip }, async () => {
  const other = await launch();
  try {
    await signIn(other.page, server, 'guest@example.com');
    const hint = other.page.getByTestId('natural-hint');
    await hint.waitFor();
    assert.match(await hint.innerText(), /operator can add them/);
    assert.equal(await hint.getByRole('link').count(), 0);
    assert.equal(await other.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Natural voices' }).count(), 0);
    await other.page.goto(`${server.base}/natural-voices`);
    await other.page.getByText('Only this server’s operator').waitFor();
    assert.deepEqual(other.problems, []);
  } finally {
    await other.close();
  }
});

test('the catalogue suggests the recommended first voice first; unreachable, it says so and what to do', { skip }, async () => {
  const { page } = b;
  catalog.setDown(true);
  // The catalogue is cached for a while; as after that while, it is read afresh.
  server.app.services.voiceInstalls.forgetCatalog();
  try {
    await page.goto(`${server.base}/natural-voices`);
    const unreachable = page.getByTestId('catalog-unreachable');
    await unreachable.waitFor();
    assert.match(await unreachable.innerText(), /could not be reached[\s\S]*VOICES_CATALOG_URL[\s\S]*npx voxsmith voices add/);
    // Nothing installed (the first test removed its voice) and nothing to pick: no "Pick one below".
    await page.getByText('None yet, and the catalogue below could not be reached').waitFor();
    assert.equal(await page.getByText('Pick one below').count(), 0);
    await b.screenshot('natural-04-catalogue-unreachable');
  } finally {
    catalog.setDown(false);
  }
  await page.getByRole('button', { name: 'Try again' }).click();
  await page.locator('li.catalog-entry').first().waitFor();
  assert.equal(await page.getByTestId('catalog-unreachable').count(), 0);
  // The good first voice is the first suggestion, not the 327 MB Kokoro fp32 bundle.
  assert.equal(await page.locator('li.catalog-entry').first().getAttribute('data-name'), 'en_US-lessac-medium');
  await page.getByText('Pick one below').waitFor();
});

test('while a voice downloads, the hint on every page says how far it is, and goes once it speaks', { skip }, async () => {
  const { page } = b;
  // The previous test's unreachable catalogue was reported on purpose; only what this one causes counts.
  const earlier = new Set(b.problems);
  await page.goto(`${server.base}/natural-voices`);
  const entry = page.locator('li.catalog-entry[data-name="en_US-ryan-high"]');
  await entry.getByRole('button', { name: 'Install en_US-ryan-high' }).click();
  await page.getByRole('progressbar', { name: 'Installing en_US-ryan-high' }).waitFor();
  // Away from the operator page, mid-download: not "No natural voice yet" but the install and its progress.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Playground' }).click();
  const hint = page.locator('[data-testid="natural-hint"][data-state="installing"]');
  await hint.waitFor();
  assert.match(await hint.innerText(), /Installing a natural voice[\s\S]*en_US-ryan-high: (\d+ % of|starting)/);
  await b.screenshot('natural-05-hint-installing');
  // When it lands the hint goes without a reload, and the voice is in the picker's list.
  await page.getByTestId('natural-hint').waitFor({ state: 'detached', timeout: 60_000 });
  const ids = await page.evaluate<string[]>(
    `(async () => (await (await fetch('/api/voices?engine=piper')).json()).voices.map((v) => v.id))()`,
  );
  assert.ok(ids.includes('piper-en-us-ryan-high'), ids.join(', '));
  assert.deepEqual(
    b.problems.filter((p) => !earlier.has(p)),
    [],
  );
});
