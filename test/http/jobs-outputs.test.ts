import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readFileSync } from 'node:fs';
import { strFromU8, unzipSync } from 'fflate';
import { useService } from '../helpers/fixture.ts';
import { buildEpub, type EpubChapter } from '../helpers/epub.ts';
import { SKIP_NO_FFMPEG, TempDir } from '../audio/ffmpeg.ts';

const run = promisify(execFile);

// A finished book's other downloads through the real server: its chapters as a zip, and a read-along EPUB 3
// whose Media Overlays are checked by epubcheck and against the words' timings of the same text spoken alone.

// Debian's epubcheck is a jar that /usr/bin runs only where the kernel runs jars (binfmt): Java is asked directly.
const EPUBCHECK = ['-jar', '/usr/share/java/epubcheck.jar'];
const HAS_EPUBCHECK = existsSync(EPUBCHECK[1]) && spawnSync('java', ['-version'], { stdio: 'ignore' }).status === 0;
const SKIP_NO_EPUBCHECK: false | string = HAS_EPUBCHECK ? false : 'epubcheck not installed (apt-get install -y epubcheck)';
const VOICE = 'flite-slt';

const CHAPTERS: EpubChapter[] = [
  { title: 'The Bright Cold Day', paragraphs: ['It was a bright cold day in April. The clocks were striking thirteen.'] },
  {
    title: 'Victory Mansions',
    paragraphs: ['Winston made for the stairs. It was no use trying the lift.', 'He rested several times on the way.'],
  },
  { title: 'The Street & the Rain', paragraphs: ['Outside, even through the shut window-pane, the world looked cold.'] },
];

let tmp: TempDir;
const s = useService({ env: { MAX_JOB_CHARS: '40000' }, user: 'outputs@example.com' }, () => {
  tmp = new TempDir();
});
after(() => tmp?.remove());

interface JobBody {
  id: string;
  status: string;
  format: string;
  chapters: Array<{ index: number; title: string; duration_seconds: number | null }>;
}

async function finished(res: Response): Promise<JobBody> {
  assert.equal(res.status, 202, await res.clone().text());
  const { id } = (await res.json()) as JobBody;
  for (const deadline = Date.now() + 120_000; ;) {
    const job = (await (await s.call(`/v1/jobs/${id}`)).json()) as JobBody;
    if (job.status === 'done') return job;
    if (job.status === 'failed' || Date.now() > deadline) throw new Error(`job ${id} is ${job.status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function uploadBook(): Promise<JobBody> {
  const form = new FormData();
  form.set('file', new Blob([buildEpub(CHAPTERS, { title: 'Nineteen Eighty-Four', author: 'George Orwell' })]), 'book.epub');
  form.set('voice_id', VOICE);
  return finished(await s.request('/v1/jobs', { body: form, bearer: s.key }));
}

async function download(path: string): Promise<{ res: Response; bytes: Uint8Array }> {
  const res = await s.call(path);
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

/**
 * Decodes with ffmpeg (it must not complain) to 16-bit samples at 24 kHz: seconds decoded. Run asynchronously, as
 * epubcheck is: a test blocked in a child process cannot see the server close its idle connections, and its
 * next request would go out on a dead one.
 */
async function decodedSeconds(path: string): Promise<number> {
  const { stdout, stderr } = await run('ffmpeg', ['-v', 'error', '-i', path, '-ac', '1', '-ar', '24000', '-f', 's16le', '-'], {
    encoding: 'buffer',
    maxBuffer: 1 << 28,
  });
  assert.equal(stderr.length, 0, `ffmpeg on ${path}: ${stderr.toString()}`);
  return stdout.length / 2 / 24_000;
}

/** The attributes of each element `name` in an XML text, in document order. */
function elements(xml: string, name: string): Array<Record<string, string>> {
  return [...xml.matchAll(new RegExp(`<${name}\\b([^>]*?)/?>`, 'g'))].map((m) =>
    Object.fromEntries([...m[1].matchAll(/([\w:]+)="([^"]*)"/g)].map((a) => [a[1], a[2]])),
  );
}

const seconds = (clock: string): number => Number(clock.replace(/s$/, ''));

describe('a finished book’s chapters as a zip and as a read-along EPUB', { skip: SKIP_NO_FFMPEG }, () => {
  let job: JobBody;

  test('the zip holds one file per chapter, in order, each the chapter’s own audio', async () => {
    job = await uploadBook();
    const { res, bytes } = await download(`/v1/jobs/${job.id}/audio?layout=chapters`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/zip');
    assert.match(res.headers.get('content-disposition') ?? '', /attachment; filename="Nineteen Eighty-Four\.zip"/);
    const files = unzipSync(bytes);
    assert.deepEqual(Object.keys(files), ['01 The Bright Cold Day.mp3', '02 Victory Mansions.mp3', '03 The Street the Rain.mp3']);
    for (const [n, [name, audio]] of Object.entries(files).entries()) {
      const alone = await download(`/v1/jobs/${job.id}/chapters/${n}/audio`);
      assert.ok(Buffer.from(audio).equals(Buffer.from(alone.bytes)), `${name} is chapter ${n}'s audio`);
      const decoded = await decodedSeconds(tmp.file(`zip-${n}.mp3`, audio));
      const expected = job.chapters[n].duration_seconds as number;
      assert.ok(Math.abs(decoded - expected) < 0.05, `${name}: decoded ${decoded} s, the chapter is ${expected} s`);
    }
  });

  test('the EPUB passes epubcheck with no errors', { skip: SKIP_NO_EPUBCHECK }, async () => {
    for (const granularity of ['sentence', 'word']) {
      const { res, bytes } = await download(`/v1/jobs/${job.id}/epub?granularity=${granularity}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/epub+zip');
      const path = tmp.file(`book-${granularity}.epub`, bytes);
      const report = `${path}.json`;
      const check = await run('java', [...EPUBCHECK, path, '--json', report], { encoding: 'utf8' }).then(
        (r) => ({ ...r, status: 0 }),
        (err: { stdout: string; stderr: string; code: number }) => ({ stdout: err.stdout, stderr: err.stderr, status: err.code }),
      );
      const messages = (JSON.parse(readFileSync(report, 'utf8')) as { messages: Array<{ severity: string; ID: string; message: string }> })
        .messages;
      const errors = messages.filter((m) => m.severity === 'ERROR' || m.severity === 'FATAL');
      assert.deepEqual(errors, [], `${granularity}: ${check.stdout}\n${check.stderr}`);
      assert.equal(check.status, 0, check.stdout);
    }
  });

  test('its overlays clip each word where the words of its text spoken alone fall; each chapter’s audio decodes', async () => {
    const { bytes } = await download(`/v1/jobs/${job.id}/epub?granularity=word`);
    const files = unzipSync(bytes);
    assert.equal(strFromU8(files['mimetype']), 'application/epub+zip');
    const opf = strFromU8(files['EPUB/package.opf']);
    const durations = elements(opf, 'meta').length;
    assert.ok(durations > 0);
    const total = /<meta property="media:duration">([^<]+)</.exec(opf)?.[1];
    assert.ok(total, 'a total media:duration');
    for (const [n, chapter] of CHAPTERS.entries()) {
      const nn = String(n + 1).padStart(3, '0');
      const smil = strFromU8(files[`EPUB/chapter-${nn}.smil`]);
      const xhtml = strFromU8(files[`EPUB/chapter-${nn}.xhtml`]);
      assert.match(opf, new RegExp(`href="chapter-${nn}.xhtml" media-type="application/xhtml\\+xml" media-overlay="mo-${nn}"`));
      // The chapter's audio inside the package decodes, as long as the job says.
      const audioPath = tmp.file(`epub-${n}.mp3`, files[`EPUB/audio/chapter-${nn}.mp3`]);
      const audioSeconds = await decodedSeconds(audioPath);
      assert.ok(Math.abs(audioSeconds - (job.chapters[n].duration_seconds as number)) < 0.05);

      const clips = elements(smil, 'par').map((_, i) => ({
        text: elements(smil, 'text')[i].src,
        begin: seconds(elements(smil, 'audio')[i].clipBegin),
        end: seconds(elements(smil, 'audio')[i].clipEnd),
      }));
      const shown = clips.map((c) => {
        const id = c.text.split('#')[1];
        return new RegExp(`<span id="${id}">([^<]*)</span>`).exec(xhtml)?.[1] ?? '';
      });
      // The same text (the title is spoken first) with the same voice, alone.
      const text = [chapter.title, ...chapter.paragraphs].join('\n\n');
      const alone = await s.call('/v1/speak/with-timestamps', { json: { text, voice_id: VOICE, format: 'mp3' } });
      assert.equal(alone.status, 200);
      const words = ((await alone.json()) as { words: Array<{ word: string; start: number; end: number }> }).words;
      assert.deepEqual(
        shown.map((w) => w.replace(/&amp;/g, '&')),
        words.map((w) => w.word),
        `chapter ${n}: the overlay reads the words in order`,
      );
      for (const [i, w] of words.entries()) {
        assert.ok(
          Math.abs(clips[i].begin - w.start) <= 0.05,
          `chapter ${n} "${w.word}": clip at ${clips[i].begin} s, spoken at ${w.start} s`,
        );
        assert.ok(clips[i].end >= w.end - 0.05, `chapter ${n} "${w.word}": the clip lasts to the word's end`);
        if (i > 0) assert.ok(clips[i].begin >= clips[i - 1].end - 0.001, 'clips do not overlap');
      }
      assert.ok(clips[clips.length - 1].end <= audioSeconds + 0.05, 'the last clip ends inside the audio');
    }
  });

  test('by sentence: one clip per sentence, from its first word', async () => {
    const { bytes } = await download(`/v1/jobs/${job.id}/epub`);
    const files = unzipSync(bytes);
    const smil = strFromU8(files['EPUB/chapter-002.smil']);
    const xhtml = strFromU8(files['EPUB/chapter-002.xhtml']);
    const audio = elements(smil, 'audio');
    // The title, then three sentences in two paragraphs.
    assert.equal(audio.length, 4, smil);
    const ids = elements(smil, 'text').map((t) => t.src.split('#')[1]);
    assert.match(xhtml, new RegExp(`<span id="${ids[1]}">Winston made for the stairs\\.</span>`));
    assert.match(xhtml, new RegExp(`<span id="${ids[3]}">He rested several times on the way\\.</span>`));
    const begins = audio.map((a) => seconds(a.clipBegin));
    for (let i = 1; i < begins.length; i++) assert.ok(begins[i] > begins[i - 1]);
  });

  test('another format: the zip holds its files; the EPUB is refused with 409', async () => {
    const wav = await finished(
      await s.call('/v1/jobs', { json: { text: 'One\n\nShort text.\n\nTwo\n\nAnother.', voice_id: VOICE, format: 'wav' } }),
    );
    const zip = await download(`/v1/jobs/${wav.id}/audio?layout=chapters`);
    assert.equal(zip.res.status, 200);
    const names = Object.keys(unzipSync(zip.bytes));
    assert.equal(names.length, wav.chapters.length);
    assert.ok(names.every((name, i) => name.startsWith(String(i + 1).padStart(2, '0')) && name.endsWith('.wav')));
    const epub = await s.call(`/v1/jobs/${wav.id}/epub`);
    assert.equal(epub.status, 409);
    assert.equal(((await epub.json()) as { code: string }).code, 'epub_format_unsupported');
    const unknown = await s.call('/v1/jobs/job_nope/epub');
    assert.equal(unknown.status, 404);
    const bad = await s.call(`/v1/jobs/${wav.id}/audio?layout=pages`);
    assert.equal(bad.status, 400);
  });
});
