import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PrivateRedis } from '../helpers/redis-server.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

// Job creation while Redis (the job queue) is down (issue 44, R1): it once hung ~101 s with the job row already
// saved, so a client that gave up and retried made a duplicate. Now it answers within a bound with the job
// accepted (it starts once Redis is back), and an Idempotency-Key makes a retry find that job instead of
// making another.

const servers: PrivateRedis[] = [];
after(async () => {
  for (const r of servers) await r.stop();
});

interface JobBody {
  id: string;
  status: string;
}

describe('POST /v1/jobs while Redis is down', () => {
  test('answers within a bound, a retry with the same Idempotency-Key gets the same job, and it renders once Redis is back', async () => {
    const redis = await PrivateRedis.start();
    servers.push(redis);
    let s: TestServer | undefined;
    try {
      s = await startServer({ env: { REDIS_URL: `${redis.url}/?prefix=r1:`, WORKERS: '1' } });
      const { key } = await s.newKey('r1@example.com');
      const { key: otherKey } = await s.newKey('r1-other@example.com');
      const create = (bearer: string, idempotencyKey: string): Promise<Response> =>
        s!.request('/v1/jobs', {
          json: { text: 'Hello there. This is a short job.', voice_id: 'flite-slt' },
          bearer,
          headers: { 'idempotency-key': idempotencyKey },
        });

      await redis.stop();
      const first = await create(key, 'book-42').then(
        (r) => r,
        () => null,
      );
      // "Within a bound": the generous 30 s is about a hang (it was 101 s), not speed.
      const answered = await Promise.race([Promise.resolve(first), new Promise<'hung'>((r) => setTimeout(() => r('hung'), 30_000))]);
      assert.notEqual(answered, 'hung');
      assert.ok(first);
      const job = (await first.json()) as JobBody;
      assert.equal(first.status, 202, JSON.stringify(job));
      assert.equal(job.status, 'queued');

      const retry = await create(key, 'book-42');
      assert.equal(retry.status, 202);
      assert.equal(((await retry.json()) as JobBody).id, job.id, 'the retry found the same job');
      // The same key from another account is another job of that account.
      const other = await create(otherKey, 'book-42');
      assert.equal(other.status, 202);
      assert.notEqual(((await other.json()) as JobBody).id, job.id);
      const list = (await (await s.request('/v1/jobs', { bearer: key })).json()) as { jobs: JobBody[] };
      assert.deepEqual(
        list.jobs.map((j) => j.id),
        [job.id],
        'one job, no duplicate',
      );

      await redis.start();
      const deadline = Date.now() + 120_000;
      let status = 'queued';
      while (Date.now() < deadline && (status === 'queued' || status === 'running')) {
        await new Promise((r) => setTimeout(r, 250));
        status = ((await (await s.request(`/v1/jobs/${job.id}`, { bearer: key })).json()) as JobBody).status;
      }
      assert.equal(status, 'done', 'the job rendered once Redis was back');
    } finally {
      await s?.close();
    }
  });

  test('an Idempotency-Key that is not one printable token is a 400', async () => {
    const s = await startServer({});
    try {
      const { key } = await s.newKey('r1-bad@example.com');
      const res = await s.request('/v1/jobs', {
        json: { text: 'Hello.', voice_id: 'flite-slt' },
        bearer: key,
        headers: { 'idempotency-key': 'x'.repeat(300) },
      });
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as { code: string }).code, 'validation');
    } finally {
      await s.close();
    }
  });
});
