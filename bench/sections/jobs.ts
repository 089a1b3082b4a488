// Long-form jobs: a 100 000-character book on one node. Its throughput (characters per second, POST to done)
// against the engine-bound figure (the worker threads jobs may use x one request's own speed), the overhead of
// cutting it into pieces (storing, encoding, assembling), and a one-sentence request's first audio while the
// book renders against the same on an idle service.
import { request, speak } from '../http-client.ts';
import type { Section } from '../report.ts';
import { fixed, ms, percentile } from '../stats.ts';
import { PARAGRAPH_2000 } from '../texts.ts';

const BOOK_CHARS = 100_000;

/** A book of about BOOK_CHARS characters: chapters of ten paragraphs. */
function book(): string {
  const paragraphs: string[] = [];
  for (let i = 0; paragraphs.join('\n\n').length < BOOK_CHARS; i++) {
    if (i % 10 === 0) paragraphs.push(`Chapter ${i / 10 + 1}`);
    // Sentences shifted per paragraph, so no two paragraphs are the same text.
    const sentences = PARAGRAPH_2000.split(/(?<=\.) /);
    paragraphs.push([...sentences.slice(i % sentences.length), ...sentences.slice(0, i % sentences.length)].join(' ').slice(0, 700));
  }
  return paragraphs.join('\n\n');
}

const sentence = (n: number) => `Please call the front desk when visitor number ${n} arrives at the gate.`;

async function firstAudio(base: string, key: string, voice: string, n: number): Promise<number> {
  const r = await speak(base, key, { text: sentence(n), voice_id: voice, format: 'pcm' });
  if (r.status !== 200) throw new Error(`sentence answered ${r.status}: ${r.text()}`);
  return r.ttfbMs;
}

interface JobState {
  status: string;
  characters: number;
  pieces: { total: number; done: number };
  duration_seconds: number | null;
}

/** Interactive first-audio samples per `runs`, idle and while the book renders. */
const SAMPLES_PER_RUN = 3;

export async function jobsBench(base: string, key: string, voice: string, workers: number, runs: number): Promise<Section> {
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  // One request's own speed: 2 000 characters as pcm on an idle service (one worker thread renders it).
  await speak(base, key, { text: PARAGRAPH_2000, voice_id: voice, format: 'pcm' });
  const single = await speak(base, key, { text: PARAGRAPH_2000, voice_id: voice, format: 'pcm' });
  const singleCps = PARAGRAPH_2000.length / (single.totalMs / 1000);
  const jobThreads = Math.max(1, workers - 1);

  // A p95 of ten samples is their slowest: one scheduling hiccup on either side moved the ratio from 1.2 to 1.8
  // between full runs of the same code (and 0.84-1.21 over three runs of this section alone).
  const samples = runs * SAMPLES_PER_RUN;
  let n = 0;
  await firstAudio(base, key, voice, n++);
  const idle: number[] = [];
  for (let i = 0; i < samples; i++) idle.push(await firstAudio(base, key, voice, n++));

  const text = book();
  const started = performance.now();
  const created = await request(`${base}/v1/jobs`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ text, voice_id: voice, format: 'mp3' }),
  });
  if (created.status !== 202) throw new Error(`POST /v1/jobs answered ${created.status}: ${created.text()}`);
  const { id } = JSON.parse(created.text()) as { id: string };
  const loaded: number[] = [];
  let state: JobState;
  for (;;) {
    state = JSON.parse((await request(`${base}/v1/jobs/${id}`, { headers: auth })).text()) as JobState;
    if (state.status === 'done' || state.status === 'failed') break;
    // Interactive requests while the book renders (after its first pieces, before its last).
    if (state.pieces.done > 2 && state.pieces.done < state.pieces.total - 2 && loaded.length < samples)
      loaded.push(await firstAudio(base, key, voice, n++));
    else await new Promise((r) => setTimeout(r, 100));
  }
  const seconds = (performance.now() - started) / 1000;
  if (state.status !== 'done') throw new Error(`the job ${state.status}`);
  await request(`${base}/v1/jobs/${id}`, { method: 'DELETE', headers: auth });

  const cps = state.characters / seconds;
  const bound = singleCps * jobThreads;
  const engineSeconds = state.characters / bound;
  const overheadPerPiece = ((seconds - engineSeconds) / state.pieces.total) * 1000;
  const ratio = loaded.length > 0 ? percentile(loaded, 95) / percentile(idle, 95) : Number.NaN;
  return {
    title: '15. Long-form jobs: a 100 000-character book on one node',
    notes: [
      `Voice ${voice}, mp3, ${workers} worker threads (jobs use ${jobThreads}: one is kept for interactive requests). The book has ${state.characters} characters in ${state.pieces.total} pieces; ` +
        `${fixed(state.duration_seconds ?? 0, 0)} s of audio.`,
      `Engine-bound figure: one /v1/speak of 2 000 characters (pcm, idle) renders ${fixed(singleCps, 0)} characters/s on its thread, x ${jobThreads} thread(s).`,
      'Piece overhead: (job wall time - the engine-bound time for its characters) / pieces: storing each piece, encoding the chapters, assembling the book.',
      `Interactive: a new one-sentence /v1/speak (pcm) first byte, ${samples} times idle and ${loaded.length} times while the book rendered. Target: loaded p95 at most 1.5 x idle p95.`,
    ],
    headers: ['measure', 'value'],
    rows: [
      ['book: POST to done', `${fixed(seconds, 1)} s`],
      ['characters per second (job)', fixed(cps, 0)],
      ['engine-bound characters per second', fixed(bound, 0)],
      ['job / engine-bound', fixed(cps / bound, 2)],
      ['overhead per piece', `${fixed(overheadPerPiece, 0)} ms`],
      ['sentence first audio idle p50 / p95', `${ms(percentile(idle, 50))} / ${ms(percentile(idle, 95))} ms`],
      [
        'sentence first audio while the book renders p50 / p95',
        loaded.length > 0 ? `${ms(percentile(loaded, 50))} / ${ms(percentile(loaded, 95))} ms` : 'n/a',
      ],
      ['ratio loaded / idle (p95)', fixed(ratio, 2)],
    ],
    summary: [
      ['100 000-character book: characters/s (job / engine-bound)', `${fixed(cps, 0)} / ${fixed(bound, 0)}`],
      ['sentence first audio p95 while a book renders / idle (target ≤ 1.5)', fixed(ratio, 2)],
    ],
  };
}
