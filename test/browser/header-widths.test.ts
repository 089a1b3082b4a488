// The dashboard's header on laptop and desktop widths (1024-1366 px): the brand, every link of the operator's
// navigation (the longest it gets), and the account fit on one row; the header is as tall as that one row.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, type BrowserSession } from './chromium.ts';
import { browserSkip, startBrowserServer, type BrowserServer } from './harness.ts';
import { signIn } from './sign-in.ts';

const skip = browserSkip();
let server: BrowserServer;
let b: BrowserSession;

before(async () => {
  if (skip) return;
  server = await startBrowserServer({});
  b = await launch();
  b.page.setDefaultTimeout(20_000);
});

after(async () => {
  if (skip) return;
  await b?.close();
  await server?.close();
});

interface Box {
  top: number;
  bottom: number;
}

test('the header is one row at 1024, 1280 and 1366 px, with every link and the account in it', { skip }, async () => {
  const { page } = b;
  // The first account is the operator: its navigation has the extra Natural voices link.
  await signIn(page, server, 'a-rather-long-operator-address@example.com');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Natural voices' }).waitFor();
  for (const width of [1024, 1280, 1366]) {
    await page.setViewportSize({ width, height: 800 });
    const header = await page.evaluate<{ header: Box; items: Box[]; padding: number }>(`(() => {
      const box = (el) => { const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom }; };
      const top = document.querySelector('header.top');
      const items = [top.querySelector('.brand'), ...top.querySelectorAll('nav a'), ...top.querySelectorAll('.account button')];
      const style = getComputedStyle(top);
      return {
        header: box(top),
        items: items.filter((el) => el.getClientRects().length > 0).map(box),
        padding: parseFloat(style.paddingTop) + parseFloat(style.paddingBottom) + parseFloat(style.borderBottomWidth),
      };
    })()`);
    // Ten links, the brand and Sign out, all shown.
    assert.equal(header.items.length, 12, `${width} px: every link shown`);
    const rowTop = Math.min(...header.items.map((i) => i.top));
    const rowBottom = Math.max(...header.items.map((i) => i.bottom));
    // One row: every item spans the same band, no item starts below another's bottom.
    for (const item of header.items) assert.ok(item.top < Math.min(...header.items.map((i) => i.bottom)), `${width} px: one row`);
    const height = header.header.bottom - header.header.top;
    assert.ok(
      Math.abs(height - (rowBottom - rowTop + header.padding)) <= 1,
      `${width} px: the header is ${height} px, its row ${rowBottom - rowTop}`,
    );
    await b.screenshot(`header-${width}`, { fullPage: false });
  }
  assert.deepEqual(b.problems, []);
});
