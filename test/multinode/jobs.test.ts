import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServiceProcess } from '../helpers/process.ts';
import type { SmtpSink } from '../helpers/smtp-sink.ts';
import { NODES_ORIGIN, startTwoNodes, type TwoNodes } from '../helpers/two-nodes.ts';
import { withPg } from '../helpers/stores.ts';

// Two real service processes on one PostgreSQL schema and one Redis prefix: both render pieces of the same
// book; one is killed with -9 mid-job and the other finishes it, with nothing lost and no piece stored twice.

const ORIGIN = NODES_ORIGIN;
let nodes: TwoNodes;
let a: ServiceProcess;
let b: ServiceProcess;
let mail: SmtpSink;

before(async () => {
  nodes = await startTwoNodes('mnj', {
    RATE_LIMIT_PER_MINUTE: '100000',
    JOB_CONCURRENCY: '1',
    // A killed node's piece is taken over after this.
    JOB_LOCK_SECONDS: '3',
  });
  ({ a, b, mail } = nodes);
});

after(async () => {
  await nodes?.stop('SIGKILL');
});

const PARAGRAPH =
  'The committee met again on Thursday to go over the plans for the new library, and after a long discussion about the budget, ' +
  'the roof and the opening hours, it agreed to ask the town for another year.';

async function post(node: ServiceProcess, path: string, json: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(node.base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(json),
  });
}

interface Piece {
  rendered_by: string | null;
  stored: boolean;
}

async function pieces(jobId: string): Promise<Piece[]> {
  return withPg(async (client) => {
    const r = await client.query<{ rendered_by: string | null; stored: boolean }>(
      `select rendered_by, samples is not null as stored from "${nodes.schema}".job_pieces where job_id = $1 order by n`,
      [jobId],
    );
    return r.rows;
  });
}

test('two nodes render pieces of one book; kill -9 of one, the other finishes it with nothing lost or stored twice', async () => {
  assert.equal((await post(a, '/api/auth/login', { email: 'cluster-reader@example.com' })).status, 200);
  const token = await mail.tokenFor('cluster-reader@example.com');
  const verify = await post(b, '/api/auth/verify', { token });
  const cookie = verify.headers.getSetCookie()[0].split(';')[0];
  const created = await post(a, '/api/auth/api-keys', { name: 'cluster' }, { cookie, origin: ORIGIN });
  const { key } = (await created.json()) as { key: string };
  const auth = { authorization: `Bearer ${key}` };

  const text = Array.from({ length: 40 }, (_, i) => `${i % 10 === 0 ? `Chapter ${i / 10 + 1}\n\n` : ''}${PARAGRAPH} (${i + 1})`).join(
    '\n\n',
  );
  const res = await post(a, '/v1/jobs', { text, voice_id: 'flite-slt' }, auth);
  assert.equal(res.status, 202);
  const { id, pieces: plan } = (await res.json()) as { id: string; pieces: { total: number } };

  // Both nodes store pieces of it; then A dies with pieces in flight.
  const deadline = Date.now() + 90_000;
  for (;;) {
    const nodes = new Set((await pieces(id)).filter((p) => p.stored).map((p) => p.rendered_by));
    if (nodes.size >= 2) break;
    assert.ok(Date.now() < deadline, 'both nodes store pieces of the book');
    await new Promise((r) => setTimeout(r, 50));
  }
  await a.stop('SIGKILL');
  const atKill = (await pieces(id)).filter((p) => p.stored).length;
  assert.ok(atKill < plan.total, `killed with ${atKill} of ${plan.total} pieces stored`);

  let status = '';
  while (status !== 'done') {
    assert.ok(Date.now() < deadline + 60_000, 'B finishes the book');
    const j = (await (await fetch(`${b.base}/v1/jobs/${id}`, { headers: auth })).json()) as { status: string };
    status = j.status;
    assert.notEqual(status, 'failed');
    await new Promise((r) => setTimeout(r, 200));
  }
  const rows = await pieces(id);
  assert.equal(rows.length, plan.total);
  assert.ok(
    rows.every((p) => p.stored),
    'every piece is stored',
  );
  const byNode = new Map<string, number>();
  for (const p of rows) byNode.set(p.rendered_by ?? '', (byNode.get(p.rendered_by ?? '') ?? 0) + 1);
  assert.equal(byNode.size, 2, `pieces by node: ${JSON.stringify([...byNode])}`);
  // No piece stored twice: B stored exactly the ones A had not.
  const metrics = await (await fetch(`${b.base}/metrics`)).text();
  const line = metrics.split('\n').find((l) => l.startsWith('voxsmith_job_pieces_total{outcome="duplicate"}'));
  assert.equal(line ? Number(line.split(' ')[1]) : 0, 0, 'B never rendered a piece A had stored');

  const audio = await fetch(`${b.base}/v1/jobs/${id}/audio`, { headers: auth });
  assert.equal(audio.status, 200);
  const index = (await (await fetch(`${b.base}/v1/jobs/${id}/chapters`, { headers: auth })).json()) as {
    chapters: Array<{ title: string }>;
  };
  assert.deepEqual(
    index.chapters.map((c) => c.title),
    ['Chapter 1', 'Chapter 2', 'Chapter 3', 'Chapter 4'],
  );
});
