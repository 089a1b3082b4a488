import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { useService } from '../helpers/fixture.ts';
import { buildEpub, zipBomb, type EpubChapter } from '../helpers/epub.ts';
import { ffmpegDecode, SKIP_NO_FFMPEG, TempDir } from '../audio/ffmpeg.ts';
import { VoxsmithClient } from '../../client/index.ts';
import { sql } from 'kysely';

// Long-form jobs through the real server, as a client drives them: upload, follow the events, fetch the audio.

const P = [
  'It was a bright cold day in April, and the clocks were striking thirteen. Winston Smith, his chin nuzzled into his breast in an effort to escape the vile wind, slipped quickly through the glass doors of Victory Mansions.',
  'The hallway smelt of boiled cabbage and old rag mats. At one end of it a coloured poster, too large for indoor display, had been tacked to the wall. It depicted simply an enormous face, more than a metre wide.',
  'Winston made for the stairs. It was no use trying the lift. Even at the best of times it was seldom working, and at present the electric current was cut off during daylight hours.',
  'Outside, even through the shut window-pane, the world looked cold. Down in the street little eddies of wind were whirling dust and torn paper into spirals.',
];

const CHAPTERS: EpubChapter[] = [
  // Two pieces (over 900 characters): the seam between them is inside the chapter.
  { title: 'The Bright Cold Day', paragraphs: [P[0], P[1], P[2], P[3], P[0]] },
  { title: 'Victory Mansions', paragraphs: [P[2]] },
  { title: 'The Street', paragraphs: [P[3], P[1]] },
];

let tmp: TempDir;
const s = useService(
  { env: { MAX_JOB_CHARS: '40000', MAX_JOBS_PER_USER: '2', MAX_JOB_UPLOAD_MB: '20' }, user: 'books@example.com' },
  async () => {
    tmp = new TempDir();
  },
);

after(async () => {
  tmp?.remove();
});

interface JobBody {
  id: string;
  status: string;
  progress: number;
  characters: number;
  title: string;
  author: string | null;
  duration_seconds: number | null;
  pieces: { total: number; done: number };
  chapters: Array<{
    index: number;
    title: string;
    status: string;
    progress: number;
    start_seconds: number | null;
    duration_seconds: number | null;
    characters: number;
  }>;
}

async function upload(bytes: Uint8Array, name: string, fields: Record<string, string> = {}, bearer = s.key): Promise<Response> {
  const form = new FormData();
  form.set('file', new Blob([bytes]), name);
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  return s.request('/v1/jobs', { body: form, bearer });
}

/** Reads an SSE stream to its end: each event's name (null for unnamed changes) and data. */
async function readEvents(res: Response): Promise<Array<{ event: string | null; data: JobBody }>> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? null;
      const data = JSON.parse(lines.find((l) => l.startsWith('data: '))?.slice(6) ?? 'null') as JobBody;
      return { event, data };
    });
}

async function job(id: string): Promise<JobBody> {
  const res = await s.call(`/v1/jobs/${id}`);
  assert.equal(res.status, 200);
  return (await res.json()) as JobBody;
}

async function waitFor(id: string, status: string, timeoutMs = 120_000): Promise<JobBody> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const j = await job(id);
    if (j.status === status) return j;
    if (j.status === 'failed' || Date.now() > deadline)
      throw new Error(`job ${id} is ${j.status}, waited for ${status}: ${JSON.stringify(j)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function bytesOf(path: string, headers: Record<string, string> = {}): Promise<{ res: Response; bytes: Uint8Array }> {
  const res = await s.call(path, { headers });
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

function seconds(path: string): number {
  return ffmpegDecode(path, { rate: 24_000 }).length / 24_000;
}

describe('POST /v1/jobs with an EPUB', { skip: SKIP_NO_FFMPEG }, () => {
  let id: string;
  let events: Array<{ event: string | null; data: JobBody }>;

  test('202 with the job; the events stream its progress in order and end with done', async () => {
    const res = await upload(
      buildEpub(CHAPTERS, { title: 'Nineteen Eighty-Four', author: 'George Orwell', titlePage: true }),
      'book.epub',
      { voice_id: 'flite-slt' },
    );
    assert.equal(res.status, 202, await res.clone().text());
    const created = (await res.json()) as JobBody;
    id = created.id;
    assert.equal(res.headers.get('location'), `/v1/jobs/${id}`);
    assert.ok(['queued', 'running'].includes(created.status));
    assert.equal(created.title, 'Nineteen Eighty-Four');
    assert.equal(created.author, 'George Orwell');
    assert.deepEqual(
      created.chapters.map((c) => c.title),
      CHAPTERS.map((c) => c.title),
    );
    assert.ok(created.pieces.total >= 4, `the first chapter is cut in pieces (${created.pieces.total} in all)`);
    assert.equal(
      created.characters,
      created.chapters.reduce((n, c) => n + c.characters, 0),
    );

    const stream = await s.call(`/v1/jobs/${id}/events`);
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
    events = await readEvents(stream);
    assert.ok(events.length >= 2, `${events.length} events`);
    const last = events[events.length - 1];
    assert.equal(last.event, 'done');
    assert.equal(last.data.status, 'done');
    assert.equal(last.data.progress, 1);
    assert.ok(
      events.slice(0, -1).every((e) => e.event === null),
      'only the last event is named',
    );
    for (let i = 1; i < events.length; i++) {
      const [a, b] = [events[i - 1].data, events[i].data];
      assert.ok(b.progress >= a.progress, `progress never goes back (${a.progress} -> ${b.progress})`);
      assert.ok(b.pieces.done >= a.pieces.done);
      b.chapters.forEach((c, n) => assert.ok(c.progress >= a.chapters[n].progress, `chapter ${n} progress never goes back`));
    }
  });

  test('the book is an MP3 whose ID3 chapters ffprobe lists with their titles and start times', async () => {
    const done = await job(id);
    const { res, bytes } = await bytesOf(`/v1/jobs/${id}/audio`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'audio/mpeg');
    assert.equal(res.headers.get('accept-ranges'), 'bytes');
    assert.equal(Number(res.headers.get('content-length')), bytes.length);
    const path = tmp.file('book.mp3', bytes);
    const probe = spawnSync('ffprobe', ['-v', 'error', '-show_chapters', '-show_format', '-of', 'json', path], { encoding: 'utf8' });
    assert.equal(probe.status, 0, probe.stderr);
    const info = JSON.parse(probe.stdout) as {
      chapters: Array<{ start_time: string; end_time: string; tags: { title: string } }>;
      format: { tags: Record<string, string> };
    };
    assert.deepEqual(
      info.chapters.map((c) => c.tags.title),
      CHAPTERS.map((c) => c.title),
    );
    assert.equal(info.format.tags.title, 'Nineteen Eighty-Four');
    assert.equal(info.format.tags.artist, 'George Orwell');
    const starts = info.chapters.map((c) => Number(c.start_time));
    assert.equal(starts[0], 0);
    for (let i = 1; i < starts.length; i++) {
      // Chapter i starts after chapter i-1's speech and the pause between chapters.
      const previous = done.chapters[i - 1].duration_seconds as number;
      assert.ok(
        starts[i] >= starts[i - 1] + previous + 1,
        `chapter ${i} at ${starts[i]} s, after ${starts[i - 1]} + ${previous} s and the pause`,
      );
      assert.ok(starts[i] <= starts[i - 1] + previous + 2, `chapter ${i} at ${starts[i]} s, no more than the pause after the last`);
      assert.ok(Math.abs(starts[i] - (done.chapters[i].start_seconds as number)) < 0.002, 'the JSON chapter index agrees');
    }
    // It decodes cleanly end to end (ffmpegDecode fails on any decoder complaint), as long as the job says.
    const total = seconds(path);
    assert.ok(Math.abs(total - (done.duration_seconds as number)) < 0.05, `decoded ${total} s, job says ${done.duration_seconds} s`);
    assert.ok(Math.abs(total - Number(info.chapters[2].end_time)) < 0.1);
  });

  test('each chapter alone is as long as its text sent to /v1/speak, seams between pieces included', async () => {
    const done = await job(id);
    for (const [n, chapter] of CHAPTERS.entries()) {
      const { res, bytes } = await bytesOf(`/v1/jobs/${id}/chapters/${n}/audio`);
      assert.equal(res.status, 200);
      const mine = seconds(tmp.file(`c${n}.mp3`, bytes));
      const text = [chapter.title, ...chapter.paragraphs].join('\n\n');
      const speak = await s.call('/v1/speak', { json: { text, voice_id: 'flite-slt', format: 'mp3' } });
      assert.equal(speak.status, 200);
      const theirs = seconds(tmp.file(`s${n}.mp3`, new Uint8Array(await speak.arrayBuffer())));
      assert.ok(
        Math.abs(mine - theirs) <= Math.max(0.2, theirs * 0.02),
        `chapter ${n}: ${mine.toFixed(3)} s as a job, ${theirs.toFixed(3)} s from /v1/speak`,
      );
      assert.ok(Math.abs(mine - (done.chapters[n].duration_seconds as number)) < 0.05);
    }
  });

  test('Range requests return the right bytes (206, suffix ranges, 416 past the end)', async () => {
    const { bytes: whole } = await bytesOf(`/v1/jobs/${id}/audio`);
    const part = await bytesOf(`/v1/jobs/${id}/audio`, { range: 'bytes=100-1099' });
    assert.equal(part.res.status, 206);
    assert.equal(part.res.headers.get('content-range'), `bytes 100-1099/${whole.length}`);
    assert.deepEqual(part.bytes, whole.subarray(100, 1100));
    // A range that crosses from the tag into the first chapter's frames, and one across a chapter boundary.
    for (const [from, to] of [
      [0, 5000],
      [whole.length - 70_000, whole.length - 1],
    ]) {
      const r = await bytesOf(`/v1/jobs/${id}/audio`, { range: `bytes=${from}-${to}` });
      assert.deepEqual(r.bytes, whole.subarray(from, to + 1));
    }
    const tail = await bytesOf(`/v1/jobs/${id}/audio`, { range: 'bytes=-333' });
    assert.equal(tail.res.status, 206);
    assert.deepEqual(tail.bytes, whole.subarray(whole.length - 333));
    const open = await bytesOf(`/v1/jobs/${id}/chapters/1/audio`, { range: 'bytes=10-' });
    const chapter = await bytesOf(`/v1/jobs/${id}/chapters/1/audio`);
    assert.deepEqual(open.bytes, chapter.bytes.subarray(10));
    const past = await s.call(`/v1/jobs/${id}/audio`, { headers: { range: `bytes=${whole.length}-` } });
    assert.equal(past.status, 416);
    assert.equal(past.headers.get('content-range'), `bytes */${whole.length}`);
    assert.equal(((await past.json()) as { code: string }).code, 'range_not_satisfiable');
  });

  test('the job is listed, its usage counted, and no other account sees it', async () => {
    const list = (await (await s.call('/v1/jobs')).json()) as { jobs: JobBody[] };
    assert.ok(list.jobs.some((j) => j.id === id));
    const usage = (await (await s.call('/api/usage')).json()) as { days: Array<{ characters: number }> };
    const characters = usage.days.reduce((n, d) => n + d.characters, 0);
    assert.ok(characters >= (await job(id)).characters, `usage ${characters}`);
    const other = await s.newKey('someone-else@example.com');
    for (const path of [`/v1/jobs/${id}`, `/v1/jobs/${id}/audio`, `/v1/jobs/${id}/events`]) {
      assert.equal((await s.request(path, { bearer: other.key })).status, 404, path);
    }
    assert.equal((await s.request(`/v1/jobs/${id}`, { method: 'DELETE', bearer: other.key })).status, 404);
    assert.equal((await s.request(`/v1/jobs/${id}`)).status, 401);
  });
});

describe('POST /v1/jobs with text', { skip: SKIP_NO_FFMPEG }, () => {
  test('plain text: "Chapter" lines start chapters; WAV chapters and a WAV book with the pauses', async () => {
    const text = `The Short Book\n\nChapter 1\n\n${P[0]}\n\nCHAPTER TWO: Inside\n\n${P[1]}\n\n${P[2]}`;
    const res = await s.call('/v1/jobs', {
      json: { text, voice_id: 'espeak-en-gb-female-1', format: 'wav', title: 'Short' },
    });
    assert.equal(res.status, 202, await res.clone().text());
    const created = (await res.json()) as JobBody;
    assert.deepEqual(
      created.chapters.map((c) => c.title),
      ['Chapter 1', 'CHAPTER TWO: Inside'],
    );
    const done = await waitFor(created.id, 'done');
    const lengths: number[] = [];
    for (const n of [0, 1]) {
      const { res: r, bytes } = await bytesOf(`/v1/jobs/${created.id}/chapters/${n}/audio`);
      assert.equal(r.headers.get('content-type'), 'audio/wav');
      lengths.push(seconds(tmp.file(`t${n}.wav`, bytes)));
    }
    const { bytes } = await bytesOf(`/v1/jobs/${created.id}/audio`);
    const book = seconds(tmp.file('t.wav', bytes));
    assert.ok(Math.abs(book - (lengths[0] + lengths[1] + 1.5)) < 0.01, `book ${book} s = chapters ${lengths.join(' + ')} s + 1.5 s`);
    assert.equal(done.chapters[1].start_seconds, Math.round((lengths[0] + 1.5) * 1000) / 1000);
  });

  test('Markdown headings and SSML are read too', async () => {
    const md = `# Guide\n\n## Setup\n\nInstall the *tool* with [the installer](https://example.com).\n\n## Use\n\n- Start it.\n- Stop it.`;
    const a = await s.call('/v1/jobs', {
      json: { text: md, text_type: 'markdown', voice_id: 'flite-slt', format: 'opus' },
    });
    assert.equal(a.status, 202);
    const ja = (await a.json()) as JobBody;
    assert.equal(ja.title, 'Guide');
    assert.deepEqual(
      ja.chapters.map((c) => c.title),
      ['Setup', 'Use'],
    );
    const ssml = `<speak><prosody rate="slow"><p>${P[0]}</p><p>${P[1]}</p><p>${P[2]}</p><p>${P[3]}</p></prosody></speak>`;
    const b = await s.call('/v1/jobs', { json: { text: ssml, text_type: 'ssml', voice_id: 'flite-slt', format: 'flac' } });
    assert.equal(b.status, 202, await b.clone().text());
    const jb = (await b.json()) as JobBody;
    assert.ok(jb.pieces.total >= 2);
    for (const j of [ja, jb]) {
      await waitFor(j.id, 'done');
      const { bytes } = await bytesOf(`/v1/jobs/${j.id}/audio`);
      assert.ok(seconds(tmp.file(`${j.id}.audio`, bytes)) > 3);
    }
  });
});

describe('retention', () => {
  test('a finished job past JOB_RETENTION_DAYS is deleted with its audio', async () => {
    const res = await s.call('/v1/jobs', { json: { text: '<speak><p>Short lived.</p></speak>', voice_id: 'flite-slt' } });
    const created = (await res.json()) as JobBody & { text_type: string; expires_at: string | null };
    assert.equal(created.text_type, 'ssml', 'text starting with <speak> is SSML');
    const done = (await waitFor(created.id, 'done')) as JobBody & { expires_at: string; finished_at: string };
    const days = (Date.parse(done.expires_at) - Date.parse(done.finished_at)) / 86_400_000;
    assert.equal(Math.round(days), 7);
    await s.app.services.jobs.sweep();
    assert.equal((await s.call(`/v1/jobs/${created.id}`)).status, 200, 'kept until it expires');
    await sql`update jobs set expires_at = ${new Date(Date.now() - 1000).toISOString()} where id = ${created.id}`.execute(
      s.app.services.db,
    );
    await s.app.services.jobs.sweep();
    assert.equal((await s.call(`/v1/jobs/${created.id}`)).status, 404);
    const left = await sql<{ n: number | string }>`select count(*) as n from job_audio where job_id = ${created.id}`.execute(
      s.app.services.db,
    );
    assert.equal(Number(left.rows[0].n), 0);
  });
});

describe('the SDK', () => {
  test('uploadJob, watchJob, jobChapters, jobAudio (with a range) and deleteJob', async () => {
    const client = new VoxsmithClient({ baseUrl: s.base, apiKey: s.key });
    const created = await client.uploadJob({
      file: new Blob([buildEpub(CHAPTERS.slice(1))]),
      filename: 'short.epub',
      voice_id: 'flite-slt',
      format: 'mp3',
    });
    const states = [];
    for await (const state of client.watchJob(created.id)) states.push(state);
    assert.equal(states.at(-1)?.status, 'done');
    const index = await client.jobChapters(created.id);
    assert.deepEqual(
      index.chapters.map((c) => c.title),
      ['Victory Mansions', 'The Street'],
    );
    const whole = await client.jobAudio(created.id);
    const part = await client.jobAudio(created.id, { range: { start: 10, end: 19 } });
    assert.deepEqual(part.audio, whole.audio.subarray(10, 20));
    assert.equal((await client.jobAudio(created.id, { chapter: 1 })).contentType, 'audio/mpeg');
    assert.deepEqual(await client.deleteJob(created.id), { id: created.id, deleted: true });
    assert.ok(!(await client.listJobs()).some((j) => j.id === created.id));
  });
});

describe('cancel and refusals', () => {
  const long = Array.from({ length: 40 }, (_, i) => `${P[i % 4]} (${i})`).join('\n\n');

  test('DELETE stops the work within a second, ends the event stream with cancelled, and the job is gone', async () => {
    const res = await s.call('/v1/jobs', { json: { text: long, voice_id: 'flite-slt' } });
    assert.equal(res.status, 202);
    const { id } = (await res.json()) as JobBody;
    const events = s.call(`/v1/jobs/${id}/events`).then(readEvents);
    const deadline = Date.now() + 60_000;
    while ((await job(id)).pieces.done < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const del = await s.call(`/v1/jobs/${id}`, { method: 'DELETE' });
    assert.equal(del.status, 200);
    assert.deepEqual(await del.json(), { id, deleted: true });
    const stoppedBy = performance.now() + 1000;
    while (s.app.services.synthesizer.stats().running > 0 && performance.now() < stoppedBy) await new Promise((r) => setTimeout(r, 10));
    assert.equal(s.app.services.synthesizer.stats().running, 0, 'no synthesis runs a second after the cancel');
    assert.equal((await s.call(`/v1/jobs/${id}`)).status, 404);
    const last = (await events).at(-1);
    assert.equal(last?.event, 'cancelled');
    // Nothing starts again later either.
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(s.app.services.synthesizer.stats().running, 0);
  });

  test('a bad EPUB, a zip bomb, an unknown file type and a missing file get clean 4xx answers', async () => {
    const before = s.app.services.synthesizer.stats();
    const cases: Array<[Response, number, string]> = [
      [await upload(new TextEncoder().encode('this is not a zip'), 'bad.epub'), 400, 'invalid_document'],
      [await upload(buildEpub(CHAPTERS).subarray(0, 2000), 'cut.epub'), 400, 'invalid_document'],
      [await upload(zipBomb(64), 'bomb.epub'), 413, 'document_too_large'],
      [await upload(new Uint8Array([1, 2, 3]), 'song.mp3'), 415, 'unsupported_media_type'],
      [await upload(new Uint8Array([0xff, 0xfe, 0x00]), 'bad.txt'), 400, 'invalid_document'],
      [await s.call('/v1/jobs', { json: { text: 'hello', voice_id: 'no-such-voice' } }), 404, 'voice_not_found'],
      [await s.call('/v1/jobs', { json: { text: 'x'.repeat(41_000) } }), 413, 'text_too_long'],
      [await s.call('/v1/jobs', { json: { text: '<speak><p>unclosed</speak>', text_type: 'ssml' } }), 400, 'ssml_invalid'],
      [await s.call('/v1/jobs', { json: { text: 'hi', format: 'aac' } }), 400, 'validation'],
      [await s.request('/v1/jobs', { json: { text: 'hi' } }), 401, 'unauthorized'],
    ];
    const form = new FormData();
    form.set('voice_id', 'flite-slt');
    cases.push([await s.call('/v1/jobs', { body: form }), 400, 'validation']);
    for (const [res, status, code] of cases) {
      const body = (await res.json()) as { error: string; code: string };
      assert.equal(res.status, status, JSON.stringify(body));
      assert.equal(body.code, code, body.error);
      assert.equal(typeof body.error, 'string');
    }
    assert.equal(s.app.services.synthesizer.stats().running, before.running, 'nothing was synthesized');
  });

  test('MAX_JOBS_PER_USER: a third job while two are queued or running is refused with 429', async () => {
    const mine = await s.newKey('busy-reader@example.com');
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await s.request('/v1/jobs', { json: { text: long, voice_id: 'flite-slt' }, bearer: mine.key });
      assert.equal(r.status, 202);
      ids.push(((await r.json()) as JobBody).id);
    }
    const third = await s.request('/v1/jobs', { json: { text: 'One more.' }, bearer: mine.key });
    assert.equal(third.status, 429);
    assert.equal(((await third.json()) as { code: string }).code, 'too_many_jobs');
    assert.match(third.headers.get('retry-after') ?? '', /^\d+$/);
    for (const id of ids) assert.equal((await s.request(`/v1/jobs/${id}`, { method: 'DELETE', bearer: mine.key })).status, 200);
    const now = await s.request('/v1/jobs', { json: { text: 'Now there is room.' }, bearer: mine.key });
    assert.equal(now.status, 202);
    await s.request(`/v1/jobs/${((await now.json()) as JobBody).id}`, { method: 'DELETE', bearer: mine.key });
  });
});
