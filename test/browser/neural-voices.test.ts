import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeVoicesDir } from '../helpers/onnx-models.ts';
import { launch, type BrowserSession } from './chromium.ts';
import { browserSkip, startBrowserServer, type BrowserServer } from './harness.ts';

// An operator's VOICES_DIR seen from the dashboard: neural voices are listed with their badge and their
// preview plays. The models are the tests' small generated ones, with Piper's and Kokoro's real signatures.
const skip = browserSkip();

let server: BrowserServer;
let b: BrowserSession;
let voicesDir: string;

before(async () => {
  if (skip) return;
  voicesDir = writeVoicesDir(mkdtempSync(join(tmpdir(), 'voxsmith-voices-')));
  server = await startBrowserServer({ SMTP_URL: '', VOICES_DIR: voicesDir });
  b = await launch();
  b.page.setDefaultTimeout(20_000);
});

after(async () => {
  if (skip) return;
  await b?.close();
  await server?.close();
  rmSync(voicesDir, { recursive: true, force: true });
});

test('neural voices from VOICES_DIR: listed with a "neural" badge, and the preview plays', { skip }, async () => {
  const { page } = b;
  await page.goto(server.base + '/');
  await page.getByLabel('E-mail address').fill('operator@example.com');
  await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
  await page.getByTestId('outbox-note').waitFor();
  const outbox = join(server.dataDir, 'outbox');
  const mail = readdirSync(outbox).find((f) => f.endsWith('.eml'));
  assert.ok(mail, 'the sign-in mail is in the outbox');
  const link = /https?:\/\/\S+\/verify\?token=[A-Za-z0-9_-]+/.exec(readFileSync(join(outbox, mail), 'utf8'))?.[0];
  assert.ok(link);
  await page.goto(link);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Playground' }).waitFor();

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Voices', exact: true }).click();
  await page.getByLabel('Search').fill('testset');
  const card = page.locator('li.voice[data-voice-id="piper-en-us-testset-medium"]');
  await card.waitFor();
  assert.equal(await card.locator('.badge').innerText(), 'neural');
  const kokoro = await page.evaluate<number>(`(async () => {
    const res = await fetch('/api/voices?engine=kokoro');
    return (await res.json()).voices.length;
  })()`);
  assert.equal(kokoro, 3, 'the Kokoro bundle lists its three voices');

  await card.getByRole('button', { name: /Play a preview of/ }).click();
  await page.waitForSelector(
    'li.voice[data-voice-id="piper-en-us-testset-medium"] .play-button:is([data-state="ended"],[data-state="error"])',
  );
  assert.equal(await card.locator('.play-button').getAttribute('data-state'), 'ended', await card.innerText());
  await b.screenshot('neural-01-voices');
  // What the button played, decoded by the browser: the model's tone, at the service's 24 kHz.
  const seconds = await page.evaluate<number>(`(async () => {
    const res = await fetch('/v1/speak', { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Hello world.', voice_id: 'piper-en-us-testset-medium', format: 'mp3' }) });
    const ctx = new OfflineAudioContext(1, 1, 24000);
    return (await ctx.decodeAudioData(await res.arrayBuffer())).duration;
  })()`);
  assert.ok(seconds > 0.2 && seconds < 10, `the neural preview decodes to ${seconds} s of audio`);
  assert.deepEqual(b.problems, []);
});
