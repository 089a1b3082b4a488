// What issue-30-style users do in Chromium: sign in from 127.0.0.1 and from a second address (127.0.0.2) of a
// server with no PUBLIC_URL; connect Home Assistant from the dashboard with no restart and hear a raw Wyoming
// synthesize; use SSML in the playground and see the words light up as they are spoken; hear lexicon rules with
// a voice that says them; and every page at 1280 and 390 px passes axe-core and has nothing sideways.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { launch, type BrowserSession } from './chromium.ts';
import { browserSkip, startBrowserServer, type BrowserServer } from './harness.ts';
import { signIn } from './sign-in.ts';
import { chooseVoice } from './voice-picker.ts';
import { WyomingClient } from '../helpers/wyoming-client.ts';

const skip = browserSkip();
const WIDTHS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let server: BrowserServer;
let b: BrowserSession;
let page: Page;
let port: number;

before(async () => {
  if (skip) return;
  // No PUBLIC_URL, listening on every address (HOST's default): 127.0.0.1 and 127.0.0.2 both reach it.
  server = await startBrowserServer({ PUBLIC_URL: '', WYOMING_PORT: '0' }, { listenHost: '0.0.0.0' });
  port = Number(new URL(server.base).port);
  b = await launch({ permissions: ['clipboard-read', 'clipboard-write'] });
  page = b.page;
  page.setDefaultTimeout(20_000);
});

after(async () => {
  if (skip) return;
  await b?.close();
  await server?.close();
});

async function axe(label: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate<Array<{ id: string; impact: string; help: string; nodes: string[] }>>(`(async () => {
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
  })()`);
  const serious = result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(serious, [], `${label}: axe found ${serious.map((v) => `${v.id} (${v.help}) at ${v.nodes.join(', ')}`).join('; ')}`);
}

/**
 * Nothing sideways: the page does not scroll horizontally, no element reaches past the viewport, and no box
 * scrolls sideways inside (code samples, which scroll by design, aside). Returns the faults, named.
 */
async function sideways(): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const faults = [];
    const vw = document.documentElement.clientWidth;
    const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
    if (document.documentElement.scrollWidth > vw) faults.push('the page scrolls sideways by ' + (document.documentElement.scrollWidth - vw) + 'px');
    const insideCode = (el) => el.closest('pre');
    for (const el of document.querySelectorAll('body *')) {
      if (insideCode(el) || el.closest('[hidden], dialog:not([open])')) continue;
      const cs = getComputedStyle(el);
      if (cs.display === 'none' || cs.visibility === 'hidden' || cs.position === 'fixed') continue;
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > vw + 0.5 && !el.closest('.visually-hidden, .skip')) faults.push(name(el) + ' reaches ' + Math.round(r.right - vw) + 'px past the edge');
      if ((cs.overflowX === 'auto' || cs.overflowX === 'scroll') && el.scrollWidth > el.clientWidth + 1) faults.push(name(el) + ' scrolls sideways by ' + (el.scrollWidth - el.clientWidth) + 'px');
    }
    return [...new Set(faults)].slice(0, 8);
  })()`);
}

describe('integrations in Chromium', { skip }, () => {
  test('sign-in works from 127.0.0.1 and from 127.0.0.2 with no PUBLIC_URL; the mail links back to the address used', async () => {
    for (const address of ['127.0.0.1', '127.0.0.2']) {
      const base = `http://${address}:${port}`;
      const email = `browser-${address.replaceAll('.', '-')}@example.com`;
      const before = server.mail.messages.length;
      await page.goto(base + '/');
      await page.getByLabel('E-mail address').fill(email);
      await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
      await page.getByRole('heading', { level: 1, name: 'Check your mail' }).waitFor();
      const token = await server.mail.tokenFor(email, before);
      const mailed =
        [...server.mail.messages]
          .reverse()
          .find((m) => m.to.includes(email))
          ?.raw.replace(/=\r?\n/g, '')
          .replace(/=3D/g, '=') ?? '';
      assert.ok(mailed.includes(`${base}/verify?token=${token}`), `the link is on ${base}`);
      await page.goto(`${base}/verify?token=${token}`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Playground' }).waitFor();
      // A cookie-authenticated write from this origin: creating a key.
      await page.goto(base + '/keys');
      await page.locator('#key-name').fill(`from ${address}`);
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByRole('heading', { name: `Your new key “from ${address}”` }).waitFor();
      assert.equal(
        await page.getByRole('alert').count(),
        0,
        await page
          .locator('.error')
          .allInnerTexts()
          .then((t) => t.join(' ')),
      );
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { level: 1, name: 'Sign in to Voxsmith' }).waitFor();
    }
  });

  test('Home Assistant: connect a new key with no restart; a raw Wyoming synthesize speaks; the request is listed', async () => {
    await signIn(page, server, 'home@example.com');
    await page.goto(server.base + '/home-assistant');
    await page.getByRole('heading', { level: 1, name: 'Home Assistant' }).waitFor();
    assert.match(await page.getByTestId('wyoming-connection').innerText(), /Not connected/);
    const wyomingPort = server.app.services.wyoming?.address()?.port;
    assert.equal(await page.getByTestId('wyoming-port').innerText(), String(wyomingPort));
    assert.equal(await page.getByTestId('wyoming-host').innerText(), '127.0.0.1');
    // Before: refused, and saying how to connect.
    const early = new WyomingClient(wyomingPort ?? 0);
    early.send('synthesize', { text: 'Are you there?' });
    assert.equal((await early.next()).data.code, 'wyoming_not_connected');
    early.close();

    await page.getByLabel('API key').selectOption({ label: 'A new key named “Home Assistant”' });
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.getByText('Connected: Home Assistant’s requests are now billed to “Home Assistant”.').waitFor();
    assert.match(await page.getByTestId('wyoming-connection').innerText(), /Connected to “Home Assistant”/);

    const client = new WyomingClient(wyomingPort ?? 0);
    client.send('synthesize', { text: 'The porch light is on.', voice: { name: 'flite-slt' } });
    const audio = await client.audio();
    client.close();
    assert.ok(audio.samples > 24_000, `${audio.samples} samples`);
    await page.getByRole('button', { name: 'Refresh' }).click();
    const row = page.getByRole('region', { name: 'Last requests' }).getByRole('row').filter({ hasText: 'flite-slt' });
    await row.first().waitFor();
    assert.match(await row.first().innerText(), /22\s+Spoken/);
    await b.screenshot('integrations-home-assistant');
  });

  test('playground: the SSML switch with its example speaks; the words light up in order as they are spoken', async () => {
    await page.goto(server.base + '/');
    await page.getByRole('heading', { level: 1, name: 'Playground' }).waitFor();
    // English text and an English voice: no offer of an English sample line.
    assert.equal(await page.getByRole('button', { name: /Use a sample line in/ }).count(), 0);
    await chooseVoice(page, 'Voice', 'german', 'espeak-de-female-1');
    await page.getByRole('button', { name: /Use a sample line in German/ }).waitFor();
    await chooseVoice(page, 'Voice', 'sally', 'flite-slt');

    await page.locator('#pg-ssml').check();
    await page.getByRole('button', { name: 'Use an SSML example' }).click();
    assert.match(await page.locator('#pg-text').inputValue(), /^<speak>/);
    assert.equal(await page.locator('label[for="pg-text"]').innerText(), 'SSML');
    await page.getByRole('button', { name: 'Speak' }).click();
    await page.getByTestId('spoken-text').waitFor();
    const words = await page.locator('[data-testid="spoken-text"] mark').allInnerTexts();
    assert.ok(words.includes('Voxsmith') && words.includes('Hello'), words.join(' '));
    assert.ok(!words.some((w) => w.includes('<')), 'markup is never a word');
    // The transcript is what is spoken: no tag, no attribute, the words in their order.
    const transcript = await page.getByTestId('spoken-text').innerText();
    assert.doesNotMatch(transcript, /<|>|interpret-as|<\/?speak/, transcript);
    assert.match(transcript, /^Hello/, transcript);
    // Played from the start, the highlighted word moves forward through the text.
    await page.evaluate(
      `(() => { const a = document.querySelector('[data-testid="speak-audio"]'); a.currentTime = 0; a.muted = true; return a.play(); })()`,
    );
    const seen: number[] = [];
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const current = await page.evaluate<number | null>(
        `(() => { const m = document.querySelector('[data-testid="spoken-text"] mark.current'); return m ? Number(m.dataset.word) : null; })()`,
      );
      if (current !== null && seen.at(-1) !== current) seen.push(current);
      if (await page.evaluate<boolean>(`document.querySelector('[data-testid="speak-audio"]').ended`)) break;
      await new Promise((r) => setTimeout(r, 40));
    }
    assert.ok(seen.length >= 5, `words highlighted: ${seen.join(',')}`);
    assert.deepEqual(
      [...seen].sort((x, y) => x - y),
      seen,
      'in order',
    );
    assert.equal(await page.locator('[data-testid="spoken-text"] mark.current').count(), 0, 'none once it has ended');
    await page.locator('#pg-ssml').uncheck();
  });

  test('lexicons: "Hear it" defaults to a voice that says phoneme rules, says when the chosen one cannot, and the open lexicon survives a reload', async () => {
    await page.evaluate(
      `fetch('/api/lexicons', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'names', rules: [{ grapheme: 'Voxsmith', phoneme: 'ˈvɒkssmɪθ' }, { grapheme: 'WHO', alias: 'World Health Organization' }] }) })`,
    );
    await page.goto(server.base + '/lexicons');
    await page.getByRole('button', { name: 'names', exact: true }).click();
    await page.getByRole('heading', { level: 2, name: 'names' }).waitFor();
    assert.match(page.url(), /\/lexicons\?lexicon=names$/);
    const picked = await page.getByRole('combobox', { name: 'Voice for “Hear it”' }).inputValue();
    assert.match(picked, /espeak|Espeak|English/i, `a voice that takes phonemes: ${picked}`);
    assert.equal(await page.getByTestId('alias-only').count(), 0);
    await chooseVoice(page, 'Voice for “Hear it”', 'sally', 'flite-slt');
    assert.match(await page.getByTestId('alias-only').innerText(), /only the “say as” \(alias\) rules/);
    await page.reload();
    await page.getByRole('heading', { level: 2, name: 'names' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'names', exact: true }).getAttribute('aria-pressed'), 'true');
    await page.getByRole('button', { name: 'Hear it: “Voxsmith”' }).click();
    await page.waitForSelector('.play-button[data-state="playing"], .play-button[data-state="ended"]');
  });

  test('every page, at 1280 and 390 px: axe finds nothing serious and nothing runs sideways', async () => {
    // Usage with a long key name and the dashboard's own row; a new key shown on the keys page.
    await page.evaluate(`(async () => {
      const k = await (await fetch('/api/auth/api-keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'production-voice-assistant-eu-west' }) })).json();
      await fetch('/v1/speak', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer ' + k.key }, body: JSON.stringify({ text: 'Counted per key.' }) });
      await fetch('/v1/speak', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'Counted for the dashboard.' }) });
    })()`);
    const faults: string[] = [];
    for (const w of WIDTHS) {
      await page.setViewportSize({ width: w.width, height: w.height });
      for (const [path, heading] of [
        ['/', 'Playground'],
        ['/voices', 'Voices'],
        ['/voices/flite-slt', 'Sally'],
        ['/forge', 'Forge'],
        ['/lexicons?lexicon=names', 'Lexicons'],
        ['/keys', 'API keys'],
        ['/usage', 'Usage'],
        ['/home-assistant', 'Home Assistant'],
        ['/nowhere', 'Page not found'],
      ] as const) {
        await page.goto(server.base + path);
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
        await page.waitForLoadState('networkidle');
        if (path === '/keys') {
          await page.locator('#key-name').fill('shown once');
          await page.getByRole('button', { name: 'Create key' }).click();
          await page.getByRole('button', { name: 'Copy key' }).waitFor();
          const lines = await page.evaluate<number>(
            `(() => { const b = [...document.querySelectorAll('button')].find((x) => x.textContent.trim() === 'Copy key'); const r = document.createRange(); r.selectNodeContents(b); return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size; })()`,
          );
          assert.equal(lines, 1, `“Copy key” on one line (${w.name})`);
        }
        if (path === '/') {
          // The voice picker's text stops before its ▾ button.
          const room = await page.evaluate<number>(
            `(() => { const i = document.querySelector('.combo input'); const t = document.querySelector('.combo-toggle'); return (i.getBoundingClientRect().right - parseFloat(getComputedStyle(i).paddingRight)) - t.getBoundingClientRect().left; })()`,
          );
          assert.ok(room <= 0, `the combobox text runs ${room}px under its ▾ (${w.name})`);
        }
        faults.push(...(await sideways()).map((f) => `${path} (${w.name}): ${f}`));
        await axe(`${path} (${w.name})`);
        if (w.name === 'phone') await b.screenshot(`integrations-phone-${path.replace(/\W+/g, '-')}`);
      }
    }
    assert.deepEqual(faults, []);
  });

  test('the sign-in button stands clear of its field at both widths', async () => {
    await page
      .getByRole('button', { name: /Sign out|Menu/ })
      .first()
      .click();
    // On a phone that click opened the menu: wait for its Sign out (isVisible() does not wait) or the signed-out page.
    const signOut = page.getByRole('button', { name: 'Sign out' });
    const signInHeading = page.getByRole('heading', { level: 1, name: 'Sign in to Voxsmith' });
    await signOut.or(signInHeading).first().waitFor();
    if (await signOut.isVisible()) await signOut.click();
    await signInHeading.waitFor();
    for (const w of WIDTHS) {
      await page.setViewportSize({ width: w.width, height: w.height });
      const gap = await page.evaluate<number>(
        `document.querySelector('form button[type=submit]').getBoundingClientRect().top - document.querySelector('#email').getBoundingClientRect().bottom`,
      );
      assert.ok(gap >= 8, `${gap}px between the field and the button (${w.name})`);
      assert.deepEqual(await sideways(), []);
      await axe(`sign-in (${w.name})`);
    }
  });

  test('no console errors (CSP included) or uncaught exceptions on any page', () => {
    assert.deepEqual(b.problems, []);
  });
});
