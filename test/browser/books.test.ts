import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { buildEpub } from '../helpers/epub.ts';
import { launch, type BrowserSession } from './chromium.ts';
import { browserSkip, startBrowserServer, type BrowserServer } from './harness.ts';
import { signIn } from './sign-in.ts';

// The Books page in Debian's Chromium on a fresh install: upload a 3-chapter EPUB, watch each chapter's progress
// bar fill live, play a chapter and the book, download the book (an MP3 with its chapters), then delete it.
const skip = browserSkip();
const UI_TIMEOUT = 60_000;

let server: BrowserServer;
let b: BrowserSession;
let page: Page;
const dir = mkdtempSync(join(tmpdir(), 'voxsmith-books-'));
const epubPath = join(dir, 'three-chapters.epub');

before(async () => {
  if (skip) return;
  writeFileSync(
    epubPath,
    buildEpub(
      [
        // Long enough to render in several pieces, so the bars are seen part-way.
        {
          title: 'Arrival',
          paragraphs: Array.from(
            { length: 8 },
            (_, i) =>
              `The train came into the station late in the evening (${i + 1}), and nobody was waiting on the platform. She carried her one bag up the hill.`,
          ),
        },
        {
          title: 'The House',
          paragraphs: ['The house stood at the end of the lane, its windows dark, its garden wild with summer grass.'],
        },
        { title: 'Morning', paragraphs: ['In the morning the fog lifted, and the whole valley lay below her in the sun.'] },
      ],
      { title: 'The Valley', author: 'A. Writer' },
    ),
  );
  server = await startBrowserServer();
  b = await launch();
  page = b.page;
  page.setDefaultTimeout(UI_TIMEOUT);
});

after(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (skip) return;
  await b?.close();
  await server?.close();
});

/**
 * Polls an expression in the page until it is truthy. (page.waitForFunction compiles its predicate with eval
 * inside the page, which the dashboard's CSP forbids; page.evaluate of a string does not.)
 */
async function until(expression: string, timeout = 30_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await page.evaluate<boolean>(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${expression}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('Books page in Chromium', { skip }, () => {
  test('upload an EPUB: chapters appear, their bars fill live, the book is done', async () => {
    await signIn(page, server, 'reader@example.com');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Books', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Books' }).waitFor();
    await page.getByText('No books yet.').waitFor();
    await page.getByLabel('File (.epub, .txt, .md, .html, .ssml)').setInputFiles(epubPath);
    await page.getByRole('button', { name: 'Make the audiobook' }).click();
    await page.getByRole('status').getByText('“The Valley” is queued: 3 chapters.').waitFor();
    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'The Valley' }) });
    for (const title of ['Arrival', 'The House', 'Morning']) await card.getByText(title, { exact: true }).waitFor();
    // The bars are fed by the event stream: the page is never reloaded.
    const seen = new Set<string>();
    const deadline = Date.now() + UI_TIMEOUT;
    while (!(await card.getByRole('button', { name: '▶ Play the book' }).isVisible())) {
      for (const value of await card
        .locator('.chapters progress')
        .evaluateAll((bars) => bars.map((p) => (p as unknown as { value: number }).value)))
        seen.add(String(value));
      assert.ok(Date.now() < deadline, 'the book finished');
      await page.waitForTimeout(50);
    }
    assert.ok(seen.size >= 2, `the chapter bars moved (${[...seen].join(', ')})`);
    const values = await card
      .locator('.chapters progress')
      .evaluateAll((bars) => bars.map((p) => (p as unknown as { value: number }).value));
    assert.deepEqual(values, [1, 1, 1]);
    await card.getByText('done', { exact: true }).waitFor();
    await b.screenshot('books-01-done');
  });

  test('play a chapter and the book; download the book with its chapters', async () => {
    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'The Valley' }) });
    await card.getByRole('button', { name: 'Play The House' }).click();
    const player = card.locator('audio.book-player');
    await player.waitFor();
    await until(`(() => {
      const a = document.querySelector('audio.book-player');
      return a !== null && a.readyState >= 1 && a.duration > 3;
    })()`);
    await card.getByRole('button', { name: '▶ Play the book' }).click();
    await until(`(() => {
      const a = document.querySelector('audio.book-player');
      return a !== null && a.src.endsWith('/audio') && !a.src.includes('/chapters/') && a.readyState >= 1 && a.duration > 10;
    })()`);
    const [download] = await Promise.all([page.waitForEvent('download'), card.getByRole('link', { name: 'Download the book' }).click()]);
    assert.equal(download.suggestedFilename(), 'The Valley.mp3');
    const path = join(dir, 'book.mp3');
    await download.saveAs(path);
    const { spawnSync } = await import('node:child_process');
    const probe = spawnSync('ffprobe', ['-v', 'error', '-show_chapters', '-of', 'json', path], { encoding: 'utf8' });
    if (probe.status === 0) {
      const chapters = (JSON.parse(probe.stdout) as { chapters: Array<{ tags: { title: string } }> }).chapters.map((c) => c.tags.title);
      assert.deepEqual(chapters, ['Arrival', 'The House', 'Morning']);
    }
  });

  test('delete the book', async () => {
    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'The Valley' }) });
    await card.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No books yet.').waitFor();
    assert.deepEqual(b.problems, []);
  });
});
