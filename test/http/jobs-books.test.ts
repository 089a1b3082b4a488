import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { strFromU8, unzipSync } from 'fflate';
import { useService } from '../helpers/fixture.ts';
import { buildEpub, type EpubChapter } from '../helpers/epub.ts';
import { ffmpegDecode, SKIP_NO_FFMPEG, TempDir } from '../audio/ffmpeg.ts';
import { createSynthesizer, type Synthesizer } from '../../src/synth/synthesizer.ts';
import type { SpeechChunk, SpeechRequest } from '../../src/synth/speech.ts';
import { NO_NEURAL_MODELS } from '../../src/synth/neural-models.ts';
import { measurePiece } from '../../src/jobs/piece-check.ts';

// Books that are checked and kept up to date, through the real server: pieces whose engine output is bad are
// caught and rendered again, a new version of a book renders only what changed, one chapter is redone alone.

const P = [
  'It was a bright cold day in April, and the clocks were striking thirteen. Winston Smith slipped quickly through the glass doors of Victory Mansions.',
  'The hallway smelt of boiled cabbage and old rag mats. At one end of it a coloured poster, too large for indoor display, had been tacked to the wall.',
  'Winston made for the stairs. It was no use trying the lift. Even at the best of times it was seldom working, and the current was cut off by day.',
  'Outside, even through the shut window-pane, the world looked cold. Down in the street little eddies of wind were whirling dust and torn paper.',
  'Behind him the radio was still babbling away about pig-iron and the overfulfilment of the Ninth Three-Year Plan, in a voice that never stopped.',
  'The ministry of truth was startlingly different from any other object in sight, an enormous pyramidal structure of glittering white concrete.',
];

/**
 * Bad engine output, through the app's own engine seam (the synthesizer it is built with): the first `times`
 * background renders of a text containing `marker` come out silent, or cut to a quarter.
 */
interface Sabotage {
  marker: string;
  mode: 'silence' | 'cut';
  times: number;
  renders: number;
}

function sabotaging(real: Synthesizer, plans: Sabotage[]): Synthesizer {
  async function* speak(req: SpeechRequest, signal?: AbortSignal, options?: { background?: boolean }): AsyncGenerator<SpeechChunk> {
    const plan = options?.background ? plans.find((p) => req.text.includes(p.marker)) : undefined;
    if (plan) plan.renders++;
    if (!plan || plan.renders > plan.times) {
      yield* real.speak(req, signal, options);
      return;
    }
    const chunks: SpeechChunk[] = [];
    for await (const c of real.speak(req, signal, options)) chunks.push(c);
    if (plan.mode === 'silence') {
      for (const c of chunks) yield { ...c, bytes: new Uint8Array(c.bytes.length) };
      return;
    }
    const total = chunks.reduce((n, c) => n + c.bytes.length, 0);
    let keep = Math.floor(total / 4) & ~1;
    for (const c of chunks) {
      if (keep <= 0) return;
      const bytes = c.bytes.subarray(0, Math.min(keep, c.bytes.length));
      keep -= bytes.length;
      yield { ...c, bytes, seconds: bytes.length / 2 / 24_000 };
    }
  }
  return {
    engines: real.engines,
    speak,
    phonemize: (req) => real.phonemize(req),
    ready: () => real.ready(),
    serving: () => real.serving(),
    stats: () => real.stats(),
    coreYield: real.coreYield,
    setNeuralModels: (m) => real.setNeuralModels(m),
    close: () => real.close(),
  };
}

const plans: Sabotage[] = [
  { marker: 'boiled cabbage', mode: 'silence', times: 1, renders: 0 },
  { marker: 'made for the stairs', mode: 'cut', times: 1, renders: 0 },
  { marker: 'shut window-pane', mode: 'silence', times: 1000, renders: 0 },
];

let tmp: TempDir;
const s = useService(
  {
    env: { MAX_JOBS_PER_USER: '2' },
    user: 'checked-books@example.com',
    speechEngines: {
      synthesizer: sabotaging(createSynthesizer({ workers: 2, warmVoices: [{ engine: 'flite', base: 'slt' }] }), plans),
      workers: 2,
      neural: { models: NO_NEURAL_MODELS, voices: [], problems: [] },
    },
  },
  () => {
    tmp = new TempDir();
  },
);
after(() => tmp?.remove());

interface Counts {
  passed: number;
  retried: number;
  failed: number;
}
interface JobBody {
  id: string;
  status: string;
  pieces: { total: number; done: number; rendered: number; reused: number };
  checks: Counts;
  chapters: Array<{ index: number; title: string; checks: Counts; pieces: { total: number; rendered: number; reused: number } }>;
}

async function upload(chapters: EpubChapter[], fields: Record<string, string>, bearer = s.key): Promise<JobBody> {
  const form = new FormData();
  form.set('file', new Blob([buildEpub(chapters, { title: 'Checked' })]), 'book.epub');
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  const res = await s.request('/v1/jobs', { body: form, bearer });
  assert.equal(res.status, 202, await res.clone().text());
  return (await res.json()) as JobBody;
}

async function job(id: string, bearer = s.key): Promise<JobBody> {
  const res = await s.request(`/v1/jobs/${id}`, { bearer });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as JobBody;
}

async function waitDone(id: string, bearer = s.key): Promise<JobBody> {
  for (const deadline = Date.now() + 180_000; ;) {
    const j = await job(id, bearer);
    if (j.status === 'done') return j;
    if (j.status === 'failed' || Date.now() > deadline) throw new Error(`job ${id} is ${j.status}: ${JSON.stringify(j)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The Media Overlay of each chapter of a job's read-along EPUB, by word (null where a chapter has none). */
async function overlays(id: string, chapters: number, bearer = s.key): Promise<Array<string | null>> {
  const res = await s.request(`/v1/jobs/${id}/epub?granularity=word`, { bearer });
  assert.equal(res.status, 200, await res.clone().text());
  const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
  return Array.from({ length: chapters }, (_, n) => {
    const smil = files[`EPUB/chapter-${String(n + 1).padStart(3, '0')}.smil`];
    return smil ? strFromU8(smil) : null;
  });
}

async function chapterBytes(id: string, n: number, bearer = s.key): Promise<Uint8Array> {
  const res = await s.request(`/v1/jobs/${id}/chapters/${n}/audio`, { bearer });
  assert.equal(res.status, 200);
  return new Uint8Array(await res.arrayBuffer());
}

function decode(bytes: Uint8Array, name: string): Float32Array {
  return ffmpegDecode(tmp.file(name, bytes), { rate: 24_000 });
}

describe('every piece is checked before it counts', { skip: SKIP_NO_FFMPEG }, () => {
  const chapters: EpubChapter[] = P.slice(0, 5).map((p, i) => ({ title: `Part ${i + 1}`, paragraphs: [p] }));
  let id: string;
  let done: JobBody;

  test('a silent and a cut piece are rendered again and pass; one that stays silent is reported', async () => {
    id = (await upload(chapters, { voice_id: 'flite-slt' })).id;
    const events = await s.call(`/v1/jobs/${id}/events`);
    const text = await events.text();
    done = await waitDone(id);
    assert.deepEqual(done.checks, { passed: done.pieces.total - 1, retried: 2, failed: 1 });
    // Each sabotaged text was rendered again (twice more for the one that cannot be mended).
    assert.deepEqual(
      plans.map((p) => p.renders),
      [2, 2, 3],
    );
    const byTitle = new Map(done.chapters.map((c) => [c.title, c]));
    assert.deepEqual(byTitle.get('Part 2')?.checks, { passed: 1, retried: 1, failed: 0 });
    assert.deepEqual(byTitle.get('Part 3')?.checks, { passed: 1, retried: 1, failed: 0 });
    assert.deepEqual(byTitle.get('Part 4')?.checks, { passed: 0, retried: 0, failed: 1 });
    assert.deepEqual(byTitle.get('Part 1')?.checks, { passed: 1, retried: 0, failed: 0 });
    // The event stream warned about the chapter with the failed piece, saying what was wrong.
    const warnings = text
      .split('\n\n')
      .filter((b) => b.startsWith('event: warning'))
      .map(
        (b) =>
          JSON.parse(
            b
              .split('\n')
              .find((l) => l.startsWith('data: '))!
              .slice(6),
          ) as { chapter: number; failed_pieces: Array<{ problem: string }> },
      );
    assert.equal(warnings.length, 1, text);
    assert.equal(warnings[0].chapter, byTitle.get('Part 4')?.index);
    assert.match(warnings[0].failed_pieces[0].problem, /silent/);
  });

  test('the mended chapters hold their whole speech; the reported one is what the engine gave', async () => {
    const index = (title: string): number => done.chapters.find((c) => c.title === title)!.index;
    // Every download first: a connection left idle while ffmpeg decodes would be closed under the next request.
    const audio = new Map<string, Uint8Array>();
    for (const title of ['Part 1', 'Part 2', 'Part 3', 'Part 4']) audio.set(title, await chapterBytes(id, index(title)));
    const clean = measurePiece(decode(audio.get('Part 1')!, 'p1.mp3'));
    for (const title of ['Part 2', 'Part 3']) {
      const m = measurePiece(decode(audio.get(title)!, `${title}.mp3`));
      // Texts of about the same length: whole speech, not a quarter of it or none.
      assert.ok(m.voicedSeconds > clean.voicedSeconds * 0.6, `${title}: ${m.voicedSeconds} s voiced against ${clean.voicedSeconds} s`);
    }
    const bad = measurePiece(decode(audio.get('Part 4')!, 'p4.mp3'));
    assert.ok(bad.voicedSeconds < clean.voicedSeconds * 0.2, `the unmended piece is silent: ${bad.voicedSeconds} s voiced`);
  });
});

describe('a new version of a book and a redone chapter render only what changed', { skip: SKIP_NO_FFMPEG }, () => {
  const v1: EpubChapter[] = [
    { title: 'One', paragraphs: [P[0]] },
    { title: 'Two', paragraphs: [P[4]] },
    { title: 'Three', paragraphs: [P[5]] },
  ];
  const v2: EpubChapter[] = [
    { title: 'One', paragraphs: [P[0]] },
    { title: 'Two', paragraphs: [`${P[4]} It went on and on.`] },
    { title: 'Three', paragraphs: [P[5]] },
    { title: 'Four', paragraphs: ['A new chapter, added later, as a web serial grows by a chapter a week.'] },
  ];
  let reader: { key: string };
  let first: JobBody;
  let second: JobBody;
  const before = new Map<number, Uint8Array>();

  test('the resubmitted EPUB renders exactly its changed and new chapters; the others are byte-identical', async () => {
    reader = await s.newKey('serial-reader@example.com');
    first = await waitDone((await upload(v1, { voice_id: 'flite-slt' }, reader.key)).id, reader.key);
    assert.equal(first.pieces.reused, 0);
    assert.equal(first.pieces.rendered, first.pieces.total);
    const old = await Promise.all([0, 1, 2].map((n) => chapterBytes(first.id, n, reader.key)));
    const oldOverlays = await overlays(first.id, 3, reader.key);
    second = await waitDone((await upload(v2, { replaces: first.id }, reader.key)).id, reader.key);
    const changed = second.chapters.filter((c) => c.title === 'Two' || c.title === 'Four');
    const expected = changed.reduce((n, c) => n + c.pieces.total, 0);
    assert.equal(second.pieces.rendered, expected, JSON.stringify(second.chapters.map((c) => c.pieces)));
    assert.equal(second.pieces.reused, second.pieces.total - expected);
    for (const n of [0, 2]) assert.deepEqual(await chapterBytes(second.id, n, reader.key), old[n], `chapter ${n}`);
    assert.notDeepEqual(await chapterBytes(second.id, 1, reader.key), old[1]);
    // Reused pieces keep their word timings: the read-along EPUB of the new version reads them as the old one did.
    const newOverlays = await overlays(second.id, 4, reader.key);
    for (const n of [0, 2]) {
      assert.ok((oldOverlays[n]?.match(/<par /g)?.length ?? 0) > 5, `chapter ${n} has an overlay by word: ${oldOverlays[n]}`);
      assert.equal(newOverlays[n], oldOverlays[n], `chapter ${n}`);
    }
    for (const n of [1, 3]) assert.ok(newOverlays[n]?.includes('<par '), `chapter ${n} has an overlay`);
    // The old version goes once the new one is done.
    const gone = await s.request(`/v1/jobs/${first.id}`, { bearer: reader.key });
    assert.equal(gone.status, 404);
  });

  test('one chapter redone with another voice changes only that chapter', async () => {
    for (const n of [0, 1, 2, 3]) before.set(n, await chapterBytes(second.id, n, reader.key));
    const res = await s.request(`/v1/jobs/${second.id}/chapters/2/render`, { json: { voice_id: 'flite-awb' }, bearer: reader.key });
    assert.equal(res.status, 202, await res.clone().text());
    const redone = await waitDone(second.id, reader.key);
    assert.equal(redone.chapters[2].pieces.rendered, redone.chapters[2].pieces.total);
    for (const n of [0, 1, 3]) assert.deepEqual(await chapterBytes(second.id, n, reader.key), before.get(n), `chapter ${n}`);
    const after = await chapterBytes(second.id, 2, reader.key);
    assert.notDeepEqual(after, before.get(2));
    assert.ok(measurePiece(decode(after, 'redone.mp3')).voicedSeconds > 2);
    const book = await s.request(`/v1/jobs/${second.id}/audio`, { bearer: reader.key });
    assert.equal(book.status, 200);
    assert.ok(decode(new Uint8Array(await book.arrayBuffer()), 'book.mp3').length > 24_000 * 10);
  });

  test('a redo of an unknown chapter, with an unknown voice, or of another account’s job is refused', async () => {
    const missing = await s.request(`/v1/jobs/${second.id}/chapters/9/render`, { json: {}, bearer: reader.key });
    assert.equal(missing.status, 404);
    const badVoice = await s.request(`/v1/jobs/${second.id}/chapters/0/render`, {
      json: { voice_id: 'no-such-voice' },
      bearer: reader.key,
    });
    assert.equal(badVoice.status, 404);
    const other = await s.call(`/v1/jobs/${second.id}/chapters/0/render`, { json: {} });
    assert.equal(other.status, 404);
  });

  test('chapters: [..] renders only those chapters', async () => {
    const res = await s.request('/v1/jobs', {
      json: {
        text: '# A\n\nFirst chapter text here.\n\n# B\n\nSecond chapter text.\n\n# C\n\nThird one.',
        text_type: 'markdown',
        chapters: [2, 0],
      },
      bearer: reader.key,
    });
    assert.equal(res.status, 202, await res.clone().text());
    const j = (await res.json()) as JobBody;
    assert.deepEqual(
      j.chapters.map((c) => c.title),
      ['A', 'C'],
    );
    const bad = await s.request('/v1/jobs', {
      json: { text: '# A\n\nFirst.\n\n# B\n\nSecond.', text_type: 'markdown', chapters: [5] },
      bearer: reader.key,
    });
    assert.equal(bad.status, 400);
    await waitDone(j.id, reader.key);
  });
});
