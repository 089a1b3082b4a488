import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launch, type BrowserSession } from './chromium.ts';
import { browserSkip, startBrowserServer, type BrowserServer } from './harness.ts';
import { signIn } from './sign-in.ts';

// What a new user meets, at desktop (1280 px) and phone (390 px) width: sign-in, the verify page (and a used
// link), the header, the voice picker, the voices page, keys with working snippets, usage with a CSV, the
// recorder, /docs with a playing "Try it out", and an axe-core check of every page.
const skip = browserSkip();

const MAX_TEXT_CHARS = 300;
const WIDTHS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;
// Asynchronous on purpose: the server runs in this process, and a blocking spawn would keep it from answering.
const run = promisify(execFile);
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let server: BrowserServer;
let b: BrowserSession;
let page: Page;

before(async () => {
  if (skip) return;
  server = await startBrowserServer({ MAX_TEXT_CHARS: String(MAX_TEXT_CHARS) });
  b = await launch({ permissions: ['clipboard-read', 'clipboard-write', 'microphone'] });
  page = b.page;
  page.setDefaultTimeout(20_000);
});

after(async () => {
  if (skip) return;
  await b?.close();
  await server?.close();
});

async function setWidth(w: (typeof WIDTHS)[number]): Promise<void> {
  await page.setViewportSize({ width: w.width, height: w.height });
}

/**
 * axe-core in the page (evaluated as a string: the pages' CSP forbids injected script tags, rightly), WCAG 2.1 AA
 * rules; any serious or critical violation fails, named with its nodes.
 */
async function axe(label: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate<Array<{ id: string; impact: string; help: string; nodes: string[] }>>(`(async () => {
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
  })()`);
  const serious = result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(serious, [], `${label}: axe found ${serious.map((v) => `${v.id} (${v.help}) at ${v.nodes.join(', ')}`).join('; ')}`);
}

/** Navigates through the header as a person does: on a phone, through its menu. */
async function openNav(name: string, heading: string): Promise<void> {
  const menu = page.getByRole('button', { name: 'Menu' });
  const link = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
  // Right after a page load the header may not be drawn yet, and isVisible() does not wait: wait for the
  // menu button (a phone) or the link (a desktop) before asking which one this width has.
  await menu.or(link).first().waitFor();
  if (await menu.isVisible()) {
    if ((await menu.getAttribute('aria-expanded')) !== 'true') await menu.click();
  }
  await link.click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

describe('a new user’s first five minutes, in Chromium', { skip }, () => {
  test('sign-in and verify pages in the app’s style; a used link offers a new one and no dead button', async () => {
    for (const w of WIDTHS) {
      await setWidth(w);
      await page.goto(server.base + '/');
      await page.getByRole('heading', { level: 1, name: 'Sign in to Voxsmith' }).waitFor();
      assert.equal(
        await page.getByRole('link', { name: 'API docs' }).getAttribute('href'),
        '/docs',
        'the reference is linked before sign-in too',
      );
      await axe(`sign-in (${w.name})`);
      await b.screenshot(`first-01-sign-in-${w.name}`);

      const email = `verify-${w.name}@example.com`;
      const before = server.mail.messages.length;
      await page.getByLabel('E-mail address').fill(email);
      await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
      const token = await server.mail.tokenFor(email, before);
      await page.goto(`${server.base}/verify?token=${token}`);
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      assert.equal(await page.locator('header .brand img').getAttribute('src'), '/favicon.svg', 'the app’s header and logo');
      assert.equal(
        await page.evaluate<string>('getComputedStyle(document.querySelector("#go")).backgroundColor'),
        'rgb(58, 72, 201)',
        'the app’s accent',
      );
      await axe(`verify (${w.name})`);
      await b.screenshot(`first-02-verify-${w.name}`);

      // The link is used elsewhere first (another device, a mail scanner that clicks): this page can no longer sign in.
      const used = await fetch(`${server.base}/api/auth/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
      assert.equal(used.status, 200);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText(/invalid or already used/).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Sign in' }).isVisible(), false, 'no dead Sign-in button');
      const again = page.getByRole('button', { name: 'Send me a new link' });
      await again.waitFor();
      await axe(`verify, used link (${w.name})`);
      await b.screenshot(`first-03-verify-used-${w.name}`);
      const beforeNew = server.mail.messages.length;
      await page.getByLabel('E-mail address').fill(email);
      await again.click();
      await page.getByText(/a sign-in link is on its way/).waitFor();
      const fresh = await server.mail.tokenFor(email, beforeNew);
      assert.notEqual(fresh, token, 'a new link was mailed');
    }
  });

  test('an expired link says so and offers a new one', async () => {
    await setWidth(WIDTHS[0]);
    const email = 'expired@example.com';
    const before = server.mail.messages.length;
    await fetch(`${server.base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email }),
    });
    const token = await server.mail.tokenFor(email, before);
    await server.app.services.db
      .updateTable('magic_links')
      .set({ expires_at: new Date(Date.now() - 60_000).toISOString() })
      .execute();
    await page.goto(`${server.base}/verify?token=${token}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(/has expired/).waitFor();
    await page.getByRole('button', { name: 'Send me a new link' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Sign in' }).isVisible(), false);
  });

  test('header: the API reference is linked; on a phone it is one row with a menu', async () => {
    await setWidth(WIDTHS[0]);
    await signIn(page, server, 'dana@example.com');
    const docs = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API docs' });
    assert.equal(await docs.getAttribute('href'), '/docs');
    assert.equal(await page.getByRole('button', { name: 'Menu' }).isVisible(), false, 'no menu button on a desktop');
    await axe('playground (desktop)');
    await b.screenshot('first-04-playground-desktop');

    await setWidth(WIDTHS[1]);
    const header = page.locator('header.top');
    const height = await header.evaluate((el) => el.getBoundingClientRect().height);
    assert.ok(height <= 64, `the phone header is one row: ${height}px`);
    const menu = page.getByRole('button', { name: 'Menu' });
    assert.equal(await menu.getAttribute('aria-expanded'), 'false');
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).isVisible(), false, 'navigation folded away');
    await b.screenshot('first-05-phone-header-closed', { fullPage: false });
    await menu.click();
    assert.equal(await menu.getAttribute('aria-expanded'), 'true');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).waitFor();
    await page.getByText('dana@example.com').waitFor();
    await axe('playground with the menu open (phone)');
    await b.screenshot('first-06-phone-menu-open', { fullPage: false });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Voices', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Voices' }).waitFor();
    assert.equal(await menu.getAttribute('aria-expanded'), 'false', 'choosing a page closes the menu');
  });

  test('voice picker: search, language groups with your voices first, keyboard, 338 voices without rendering them all', async () => {
    // One voice of one's own, to be listed first.
    const bred = await page.evaluate<{
      voice: { id: string };
    }>(`fetch('/v1/forge/breed', { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ parent_a: 'flite-slt', parent_b: 'flite-awb', name: 'Juniper', seed: 3 }) }).then((r) => r.json())`);
    assert.ok(bred.voice?.id, JSON.stringify(bred));
    for (const w of WIDTHS) {
      await setWidth(w);
      await page.goto(server.base + '/');
      await page.getByRole('heading', { level: 1, name: 'Playground' }).waitFor();
      const box = page.getByRole('combobox', { name: 'Voice' });
      await box.click();
      const listbox = page.getByRole('listbox', { name: 'Voice' });
      await listbox.waitFor();
      const groups = await listbox.getByRole('group').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
      assert.deepEqual(groups.slice(0, 2), ['Default', 'Your voices'], 'the default, then your voices first');
      // The browser's language first (English here), then the others by name.
      assert.equal(groups[2], 'English');
      const languages = groups.slice(3);
      assert.deepEqual(
        languages,
        [...languages].sort((a, b) => (a ?? '').localeCompare(b ?? '', 'en')),
        'the other languages by name',
      );
      const rendered = await listbox.getByRole('option').count();
      assert.ok(rendered < 150, `only a window of the options is rendered: ${rendered}`);
      assert.match(await page.locator('.combo-count').innerText(), /^3\d\d voices$/);

      await box.fill('german male');
      await page.getByText(/voices? matching “german male”/).waitFor();
      const found = await listbox.getByRole('option').allInnerTexts();
      assert.ok(found.length > 0 && found.every((t) => /de-DE · male/.test(t)), found.join(' | '));
      await b.screenshot(`first-07-picker-search-${w.name}`, { fullPage: false });
      // Keyboard: down twice, Enter picks the second match.
      await box.press('ArrowDown');
      const second = await listbox.getByRole('option').nth(1).getAttribute('data-voice-id');
      const activeId = await box.getAttribute('aria-activedescendant');
      assert.equal(
        await page.locator(`[id="${activeId}"]`).getAttribute('data-voice-id'),
        second,
        'aria-activedescendant follows the arrows',
      );
      await box.press('Enter');
      assert.equal(await listbox.isVisible(), false);
      assert.match(await box.inputValue(), /German \(de-DE\), male/);
      await axe(`playground, a voice chosen (${w.name})`);

      // End reaches the last of all voices, rendering more as needed; Escape closes without a change.
      await box.focus();
      await box.press('ArrowDown');
      await box.press('End');
      const last = page.locator(`[id="${await box.getAttribute('aria-activedescendant')}"]`);
      assert.ok(Number(await last.getAttribute('data-index')) > 300, 'the last option is reachable');
      await box.press('Escape');
      assert.match(await box.inputValue(), /German \(de-DE\), male/);
    }
  });

  test('over the text limit the buttons say why they are disabled', async () => {
    for (const w of WIDTHS) {
      await setWidth(w);
      await page.goto(server.base + '/');
      await page.getByLabel('Text').fill('x'.repeat(MAX_TEXT_CHARS + 12));
      const why = page.getByTestId('why-disabled');
      await why.waitFor();
      assert.match(await why.innerText(), new RegExp(`12 characters over this server’s limit of ${MAX_TEXT_CHARS}`));
      for (const name of ['Speak', 'Stream']) {
        const button = page.getByRole('button', { name, exact: true });
        assert.ok(await button.isDisabled(), `${name} disabled`);
        assert.equal(await button.getAttribute('aria-describedby'), 'pg-why', `${name} is described by the reason`);
      }
      await b.screenshot(`first-08-over-limit-${w.name}`);
      await page.getByLabel('Text').fill('Short again.');
      await why.waitFor({ state: 'detached' });
      assert.ok(await page.getByRole('button', { name: 'Speak', exact: true }).isEnabled());
    }
  });

  test('voices page: a page of cards at a time, by language name, descriptions without the shared boilerplate', async () => {
    for (const w of WIDTHS) {
      await setWidth(w);
      await page.goto(server.base + '/');
      await openNav('Voices', 'Voices');
      const cards = page.locator('#voice-results li.voice');
      await cards.first().waitFor();
      const first = await cards.count();
      assert.equal(first, 48);
      const languages = await cards.locator('.meta').evaluateAll((els) => els.map((e) => (e.textContent ?? '').split(' ')[0]));
      // The service's order: the browser's language (English here) first, not Afrikaans, Albanian, Amharic.
      const english = languages.findIndex((l) => l !== 'English');
      assert.ok(
        english > 10 && languages.slice(0, english).every((l) => l === 'English'),
        `English voices first: ${languages.slice(0, 20).join(', ')}`,
      );
      const descriptions = await cards.locator('.description').allInnerTexts();
      assert.ok(!descriptions.some((d) => d.includes('eSpeak NG formant synthesis')), 'the engine sentence is not repeated on every card');
      assert.equal(new Set(descriptions).size, descriptions.length, 'every card reads differently');
      assert.equal(await page.getByTestId('engine-notes').count(), 0, 'no stray engine-notes paragraph');
      await page.getByRole('button', { name: /Show 48 more voices/ }).click();
      await cards.nth(95).waitFor();
      assert.equal(await cards.count(), 96);
      await axe(`voices (${w.name})`);
      await b.screenshot(`first-09-voices-${w.name}`, { fullPage: false });
    }
  });

  test('keys: the full key in every snippet, each with its copy button; the curl and OpenAI JS snippets work as pasted', async () => {
    for (const w of WIDTHS) {
      await setWidth(w);
      await openNav('API keys', 'API keys');
      await page.getByLabel('Name', { exact: true }).fill(`snippets ${w.name}`);
      await page.getByRole('button', { name: 'Create key' }).click();
      // The previous width's new key is still on the page until this one replaces it: wait for this one's panel.
      await page.getByRole('heading', { name: `Your new key “snippets ${w.name}”` }).waitFor();
      const key = await page.getByLabel('New API key').inputValue();
      const tabs = page.getByRole('tablist', { name: 'Examples with your new key' }).getByRole('tab');
      assert.deepEqual(await tabs.allInnerTexts(), ['curl', 'OpenAI SDK (Python)', 'OpenAI SDK (JavaScript)', 'Voxsmith SDK']);
      const snippets: Record<string, string> = {};
      for (const label of await tabs.allInnerTexts()) {
        await page.getByRole('tab', { name: label }).click();
        const code = await page.getByTestId('snippet-code').innerText();
        assert.ok(code.includes(key), `${label}: the whole key`);
        snippets[label] = code;
        await page.getByRole('button', { name: `Copy ${label} example` }).click();
        await page.getByText(new RegExp(`${label.replace(/[()]/g, '\\$&')} example copied|press Ctrl\\+C`)).waitFor();
      }
      // Keyboard: arrows move between the tabs.
      await page.getByRole('tab', { name: 'curl' }).click();
      await page.keyboard.press('ArrowRight');
      assert.equal(await page.getByRole('tab', { name: 'OpenAI SDK (Python)' }).getAttribute('aria-selected'), 'true');
      await axe(`keys with a new key (${w.name})`);
      await b.screenshot(`first-10-keys-snippets-${w.name}`);

      if (w.name === 'desktop') {
        // As pasted: the curl line in a shell, the OpenAI snippet in Node with the real openai package.
        const dir = mkdtempSync(join(tmpdir(), 'voxsmith-snippet-'));
        try {
          await run('bash', ['-c', snippets.curl], { cwd: dir, timeout: 60_000 });
          const mp3 = readFileSync(join(dir, 'hello.mp3'));
          assert.ok(
            mp3.length > 1000 && (mp3.subarray(0, 3).toString('latin1') === 'ID3' || (mp3[0] === 0xff && (mp3[1] & 0xe0) === 0xe0)),
            'curl wrote an MP3',
          );
          const script = join(process.cwd(), `.snippet-${process.pid}.mjs`);
          writeFileSync(script, snippets['OpenAI SDK (JavaScript)']);
          try {
            await run(process.execPath, [script], { cwd: dir, timeout: 60_000 });
          } finally {
            rmSync(script, { force: true });
          }
          assert.ok(readFileSync(join(dir, 'hello.mp3')).length > 1000, 'the OpenAI SDK wrote an MP3');
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    }
  });

  test('usage: a date range, per-key rows with a revoked key marked, a CSV download', async () => {
    await setWidth(WIDTHS[0]);
    await openNav('API keys', 'API keys');
    const created = await page.evaluate<{ key: string; id: string }>(`fetch('/api/auth/api-keys', { method: 'POST',
      headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'old script' }) }).then((r) => r.json())`);
    const spoken = await fetch(server.base + '/v1/speak', {
      method: 'POST',
      headers: { authorization: `Bearer ${created.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Counted, then revoked.', format: 'pcm' }),
    });
    await spoken.arrayBuffer();
    await page.reload();
    await page.getByRole('button', { name: 'Revoke key old script' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('Key “old script” revoked.').waitFor();

    for (const w of WIDTHS) {
      await setWidth(w);
      await openNav('Usage', 'Usage');
      const row = page.getByRole('row', { name: /old script/ });
      await row.waitFor();
      assert.match(await row.innerText(), /Revoked/);
      assert.equal(await page.getByLabel('To', { exact: true }).inputValue(), new Date().toISOString().slice(0, 10));
      await page.getByRole('button', { name: 'Last 7 days' }).click();
      const sevenDaysAgo = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
      assert.equal(await page.getByLabel('From', { exact: true }).inputValue(), sevenDaysAgo);
      await page
        .getByTestId('usage-total')
        .getByText(/characters in \d+ requests?/)
        .waitFor();
      await axe(`usage (${w.name})`);
      await b.screenshot(`first-11-usage-${w.name}`);
    }
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
    const path = await download.path();
    const csv = readFileSync(path, 'utf8').trimEnd().split('\r\n');
    assert.equal(csv[0], 'day,key_id,key_name,revoked,characters,requests');
    assert.ok(
      csv.some((l) => l.endsWith(`,${created.id},old script,true,${'Counted, then revoked.'.length},1`)),
      csv.join('\n'),
    );
    assert.match(download.suggestedFilename(), /^voxsmith-usage-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/);
  });

  test('forge recorder: a paragraph to read aloud and an input level meter that moves', async () => {
    for (const w of WIDTHS) {
      await setWidth(w);
      await openNav('Forge', 'Forge');
      await page.getByLabel('Record with the microphone').check();
      const passage = page.getByTestId('read-aloud');
      assert.match(await passage.innerText(), /North Wind and the Sun/);
      // The page keeps the desktop take when the phone pass comes back to it: a second take is offered instead.
      await page.getByRole('button', { name: w.name === 'desktop' ? 'Start recording' : 'Record again', exact: true }).click();
      const meter = page.getByTestId('level-meter');
      await meter.waitFor();
      // Chromium's fake capture device beeps: the meter must show it.
      const deadline = Date.now() + 10_000;
      let level = 0;
      while (level <= 0.001 && Date.now() < deadline) {
        level = Number(await meter.getAttribute('data-level'));
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(level > 0.001, `the meter shows the input: ${level}`);
      assert.equal(await page.getByLabel('Input level').evaluate((el) => el.tagName), 'METER');
      assert.match(
        await page.getByLabel(/What the sample says/).inputValue(),
        /^The North Wind and the Sun/,
        'the passage is the transcript',
      );
      await axe(`forge, recording (${w.name})`);
      await b.screenshot(`first-12-recorder-${w.name}`);
      await page.getByRole('button', { name: /Stop recording/ }).click();
      await page.getByText(/recording\.wav · /).waitFor();
      await page.getByLabel(/What the sample says/).fill('');
      await axe(`forge (${w.name})`);
    }
  });

  test('/docs: our name and logo, no console errors, no binary examples, and Try it out on /v1/speak plays the answer', async () => {
    for (const w of WIDTHS) {
      await setWidth(w);
      await page.goto(server.base + '/docs');
      const speak = page.locator('#operations-Speech-post_v1_speak');
      await speak.waitFor();
      assert.equal(await page.title(), 'Voxsmith API reference');
      assert.match((await page.locator('.topbar-wrapper a img').getAttribute('src')) ?? '', /^data:image\/svg\+xml;base64,/);
      assert.equal(await page.locator('link[rel="icon"]').getAttribute('type'), 'image/svg+xml');
      await speak.locator('.opblock-summary').click();
      const examples = await speak.locator('.responses-wrapper .microlight, .responses-wrapper .example').allInnerTexts();
      assert.ok(
        // eslint-disable-next-line no-control-regex
        !examples.some((e) => /[\u0000-\u0008\u000e-\u001f\u007f-\u009f\ufffd]/.test(e)),
        `no binary in examples: ${JSON.stringify(examples).slice(0, 300)}`,
      );
      await speak.getByRole('button', { name: 'Try it out' }).click();
      await speak.getByRole('button', { name: 'Execute' }).click();
      const audio = speak.getByTestId('docs-audio');
      await audio.waitFor();
      assert.match((await audio.getAttribute('src')) ?? '', /^blob:/, 'played from the answer itself, not a second GET');
      const duration = await page.evaluate<number>(`new Promise((resolve) => {
        const a = document.querySelector('[data-testid="docs-audio"]');
        if (a.readyState >= 1) resolve(a.duration);
        else a.addEventListener('loadedmetadata', () => resolve(a.duration), { once: true });
      })`);
      assert.ok(duration > 1 && duration < 10, `the answer plays: ${duration} s`);
      assert.match((await speak.getByRole('link', { name: /Download speech\.mp3/ }).getAttribute('href')) ?? '', /^blob:/);
      await axe(`docs (${w.name})`);
      await b.screenshot(`first-13-docs-${w.name}`, { fullPage: false });
      await speak.scrollIntoViewIfNeeded();
      await b.screenshot(`first-14-docs-try-it-${w.name}`, { fullPage: false });
    }
  });

  test('every dashboard page passes axe at both widths', async () => {
    for (const w of WIDTHS) {
      await setWidth(w);
      for (const [path, heading] of [
        ['/', 'Playground'],
        ['/voices', 'Voices'],
        ['/forge', 'Forge'],
        ['/keys', 'API keys'],
        ['/usage', 'Usage'],
        ['/lexicons', 'Lexicons'],
        ['/home-assistant', 'Home Assistant'],
        ['/nowhere', 'Page not found'],
      ] as const) {
        await page.goto(server.base + path);
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
        await page.waitForLoadState('networkidle');
        await axe(`${path} (${w.name})`);
      }
    }
  });

  test('no console errors (CSP included) or uncaught exceptions on any page', () => {
    assert.deepEqual(b.problems, []);
  });
});
