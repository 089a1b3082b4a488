import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SmtpSink } from '../helpers/smtp-sink.ts';
import { startProcess } from '../helpers/process.ts';

// kill -9 in the middle of a job: what was stored stays stored, and the restarted node finishes the job
// rendering only the pieces that were not stored (counted in the database and in its metrics).

const dataDir = mkdtempSync(join(tmpdir(), 'voxsmith-jobs-restart-'));
const mail = new SmtpSink();
after(async () => {
  await mail.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const ORIGIN = 'http://voxsmith.test';
const PARAGRAPH =
  'The committee met again on Thursday to go over the plans for the new library, and after a long discussion about the budget, ' +
  'the roof and the opening hours, it agreed to ask the town for another year.';

async function post(base: string, path: string, json: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(json) });
}

/** A counter of the Prometheus text, 0 when the series is absent. */
function counter(metrics: string, series: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

function storedPieces(jobId: string): { stored: number; total: number; by: string[] } {
  const db = new Database(join(dataDir, 'voxsmith.db'), { readonly: true });
  try {
    const rows = db.prepare('select rendered_by, samples from job_pieces where job_id = ?').all(jobId) as Array<{
      rendered_by: string | null;
      samples: number | null;
    }>;
    return {
      stored: rows.filter((r) => r.samples !== null).length,
      total: rows.length,
      by: rows.filter((r) => r.samples !== null).map((r) => r.rendered_by ?? ''),
    };
  } finally {
    db.close();
  }
}

test('kill -9 mid-job: the restarted node finishes it without rendering a stored piece again', async () => {
  const env = {
    DATA_DIR: dataDir,
    SMTP_URL: await mail.start(),
    PUBLIC_URL: ORIGIN,
    WORKERS: '1',
    JOB_CONCURRENCY: '1',
    RATE_LIMIT_PER_MINUTE: '100000',
  };
  const first = await startProcess(env);
  let key: string;
  let jobId: string;
  try {
    assert.equal((await post(first.base, '/api/auth/login', { email: 'reader@example.com' })).status, 200);
    const token = await mail.tokenFor('reader@example.com');
    const verify = await post(first.base, '/api/auth/verify', { token });
    const cookie = verify.headers.getSetCookie()[0].split(';')[0];
    const created = await post(first.base, '/api/auth/api-keys', { name: 'books' }, { cookie, origin: ORIGIN });
    key = ((await created.json()) as { key: string }).key;
    const text = Array.from({ length: 32 }, (_, i) => `${PARAGRAPH} (${i + 1})`).join('\n\n');
    const res = await post(first.base, '/v1/jobs', { text, voice_id: 'flite-slt', format: 'mp3' }, { authorization: `Bearer ${key}` });
    assert.equal(res.status, 202);
    jobId = ((await res.json()) as { id: string }).id;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const j = (await (await fetch(`${first.base}/v1/jobs/${jobId}`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
        pieces: { done: number; total: number };
      };
      if (j.pieces.done >= 3) break;
      assert.ok(Date.now() < deadline, 'pieces get stored');
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await first.stop('SIGKILL');
  }
  const { stored: storedAtKill, total } = storedPieces(jobId);
  assert.ok(storedAtKill >= 3 && storedAtKill < total, `${storedAtKill} of ${total} pieces stored when the node was killed`);

  const second = await startProcess(env);
  try {
    const auth = { authorization: `Bearer ${key}` };
    const deadline = Date.now() + 120_000;
    let status = '';
    while (status !== 'done') {
      assert.ok(Date.now() < deadline, 'the job finishes after the restart');
      const j = (await (await fetch(`${second.base}/v1/jobs/${jobId}`, { headers: auth })).json()) as { status: string };
      status = j.status;
      assert.notEqual(status, 'failed');
      await new Promise((r) => setTimeout(r, 200));
    }
    const metrics = await (await fetch(`${second.base}/metrics`)).text();
    const rendered = counter(metrics, 'voxsmith_synthesis_requests_total{endpoint="jobs",engine="flite",outcome="ok"}');
    const stored = counter(metrics, 'voxsmith_job_pieces_total{outcome="stored"}');
    assert.equal(stored, total - storedAtKill, 'the restarted node stored exactly the missing pieces');
    assert.equal(rendered, total - storedAtKill, 'and rendered no piece that was already stored');
    assert.equal(counter(metrics, 'voxsmith_job_pieces_total{outcome="duplicate"}'), 0);
    const audio = await fetch(`${second.base}/v1/jobs/${jobId}/audio`, { headers: auth });
    assert.equal(audio.status, 200);
    assert.ok((await audio.arrayBuffer()).byteLength > 100_000);
  } finally {
    await second.stop('SIGTERM');
  }
  const after = storedPieces(jobId);
  assert.equal(after.total, total);
  assert.equal(new Set(after.by).size, 2, 'pieces were rendered by both processes');
});
