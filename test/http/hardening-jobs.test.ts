import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { useService } from '../helpers/fixture.ts';

// Jobs bounded before any work starts (issue 44, J1): a 4 MB Markdown body of a million one-character headings
// once stalled the event loop for 48 s and kept /healthz from answering for minutes; it is now refused by the
// document thread on its chapter count, while the event loop stays free.

interface ErrorBody {
  error: string;
  code: string;
}

/** Polls /healthz until `done` settles: how many answered, and the slowest answer (ms). */
async function healthWhile<T>(base: string, done: Promise<T>): Promise<{ result: T; answered: number; failed: number; slowestMs: number }> {
  let settled = false;
  const result = done.finally(() => {
    settled = true;
  });
  let answered = 0;
  let failed = 0;
  let slowestMs = 0;
  while (!settled) {
    const started = performance.now();
    try {
      const res = await fetch(new URL('/healthz', base), { signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      if (res.status === 200) answered++;
      else failed++;
    } catch {
      failed++;
    }
    slowestMs = Math.max(slowestMs, performance.now() - started);
    await new Promise((r) => setTimeout(r, 20));
  }
  return { result: await result, answered, failed, slowestMs };
}

describe('J1: chapters and pieces are bounded before any work starts', () => {
  const s = useService({ env: { MAX_JOB_CHAPTERS: '500' }, user: 'j1@example.com' });

  test('a million one-character headings are refused with 413 job_too_large while /healthz answers throughout', async () => {
    const text = '# a\n'.repeat(1_000_000);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = performance.now();
    const {
      result: res,
      answered,
      failed,
    } = await healthWhile(s.base, s.call('/v1/jobs', { json: { text, text_type: 'markdown', voice_id: 'flite-slt' } }));
    const refusedMs = performance.now() - started;
    delay.disable();
    const body = (await res.json()) as ErrorBody;
    const maxDelayMs = delay.max / 1e6;
    console.log(`refused in ${Math.round(refusedMs)} ms; event loop delay max ${Math.round(maxDelayMs)} ms; /healthz ${answered} answered`);
    assert.equal(res.status, 413, JSON.stringify(body));
    assert.equal(body.code, 'job_too_large');
    assert.match(body.error, /MAX_JOB_CHAPTERS/);
    assert.equal(failed, 0, 'every /healthz probe answered 200 within 10 s');
    assert.ok(answered > 0, '/healthz was asked while the document was read');
    // Generous, about a stall rather than speed: the loop used to be held for tens of seconds.
    assert.ok(maxDelayMs < 2_000, `the event loop was held ${Math.round(maxDelayMs)} ms`);
    // Nothing was saved.
    const list = (await (await s.call('/v1/jobs')).json()) as { jobs: unknown[] };
    assert.equal(list.jobs.length, 0);
  });

  test('many chapters within the bound are accepted, and the job lists them', async () => {
    const text = Array.from({ length: 40 }, (_, i) => `# Part ${i + 1}\n\nSome words of part ${i + 1}.\n`).join('\n');
    const res = await s.call('/v1/jobs', { json: { text, text_type: 'markdown', voice_id: 'flite-slt' } });
    assert.equal(res.status, 202);
    const job = (await res.json()) as { id: string; chapters: unknown[] };
    assert.equal(job.chapters.length, 40);
    assert.equal((await s.call(`/v1/jobs/${job.id}`, { method: 'DELETE' })).status, 200);
  });
});

describe('J1: pieces per job are bounded', () => {
  const s = useService({ env: { MAX_JOB_PIECES: '10' }, user: 'j1-pieces@example.com' });

  test('a document of more pieces than MAX_JOB_PIECES is refused with 413 job_too_large', async () => {
    // Paragraphs of ~600 characters: each one its own piece.
    const para = 'These are the words of a long paragraph that goes on for a while. '.repeat(9);
    const text = Array.from({ length: 12 }, () => para).join('\n\n');
    const res = await s.call('/v1/jobs', { json: { text, voice_id: 'flite-slt' } });
    const body = (await res.json()) as ErrorBody;
    assert.equal(res.status, 413, JSON.stringify(body));
    assert.equal(body.code, 'job_too_large');
    assert.match(body.error, /MAX_JOB_PIECES/);
  });
});
