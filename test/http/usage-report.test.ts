// The usage report over a chosen range of days, per key with revoked keys marked, and as a CSV download.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useService } from '../helpers/fixture.ts';

const s = useService();

const DAY = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY).toISOString().slice(0, 10);

interface Report {
  plan: string;
  since: string;
  until: string;
  days: Array<{ day: string; characters: number; requests: number }>;
  keys: Array<{ key_id: string | null; name: string; revoked: boolean; characters: number; requests: number }>;
}

async function speak(key: string, text: string): Promise<void> {
  const res = await s.request('/v1/speak', { json: { text, format: 'pcm' }, bearer: key });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
}

test('a range of days, per-key rows with revoked keys marked, and the same rows as CSV', async () => {
  const { cookie, user } = await s.signIn('ranges@example.com');
  const create = async (name: string) => {
    const res = await s.request('/api/auth/api-keys', { json: { name }, cookie, sameOrigin: true });
    return (await res.json()) as { key: string; id: string };
  };
  const kept = await create('build server');
  // A name a spreadsheet would run as a formula if written as is.
  const gone = await create('=HYPERLINK("http://evil.example","x")');
  await speak(kept.key, 'Kept key speaks.');
  await speak(gone.key, 'Revoked key spoke once.');
  assert.equal(
    (await s.request('/api/auth/api-keys', { method: 'DELETE', json: { key_id: gone.id }, cookie, sameOrigin: true })).status,
    200,
  );
  // Earlier days, as if recorded then.
  await s.app.services.db
    .insertInto('usage')
    .values([
      { user_id: user.id, key_id: kept.id, day: daysAgo(40), chars: 400, requests: 4 },
      { user_id: user.id, key_id: '', day: daysAgo(10), chars: 100, requests: 1 },
    ])
    .execute();

  const all = (await (await s.request('/api/usage', { cookie })).json()) as Report;
  assert.equal(all.until, daysAgo(0));
  assert.equal(all.since, daysAgo(29), 'the last 30 days by default');
  const byName = new Map(all.keys.map((k) => [k.name, k]));
  assert.equal(byName.get('build server')?.revoked, false);
  assert.equal(byName.get('=HYPERLINK("http://evil.example","x")')?.revoked, true, 'the revoked key is marked');
  assert.equal(
    byName.get('=HYPERLINK("http://evil.example","x")')?.characters,
    'Revoked key spoke once.'.length,
    'its past use still counts',
  );
  assert.equal(byName.get('Dashboard (session)')?.characters, 100);
  assert.ok(!all.days.some((d) => d.day === daysAgo(40)), 'day 40 is outside the last 30');

  const range = (await (await s.request(`/api/usage?from=${daysAgo(45)}&to=${daysAgo(5)}`, { cookie })).json()) as Report;
  assert.deepEqual(
    range.days.map((d) => [d.day, d.characters]),
    [
      [daysAgo(40), 400],
      [daysAgo(10), 100],
    ],
    'only the days in the range, today left out',
  );
  assert.deepEqual(range.keys.map((k) => [k.name, k.characters]).sort(), [
    ['Dashboard (session)', 100],
    ['build server', 400],
  ]);

  const csv = await s.request(`/api/usage?from=${daysAgo(45)}&format=csv`, { cookie });
  assert.equal(csv.status, 200);
  assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
  assert.match(
    csv.headers.get('content-disposition') ?? '',
    new RegExp(`attachment; filename="voxsmith-usage-${daysAgo(45)}-to-${daysAgo(0)}\\.csv"`),
  );
  const lines = (await csv.text()).trimEnd().split('\r\n');
  assert.equal(lines[0], 'day,key_id,key_name,revoked,characters,requests');
  assert.ok(lines.includes(`${daysAgo(40)},${kept.id},build server,false,400,4`), lines.join('\n'));
  assert.ok(lines.includes(`${daysAgo(10)},,Dashboard (session),false,100,1`), lines.join('\n'));
  const revokedLine = lines.find((l) => l.includes(gone.id));
  assert.equal(
    revokedLine,
    `${daysAgo(0)},${gone.id},"'=HYPERLINK(""http://evil.example"",""x"")",true,${'Revoked key spoke once.'.length},1`,
    'quoted, and no formula',
  );
  assert.equal(lines.length, 1 + 4, 'one row per day and key');
});

test('bad ranges are refused in words', async () => {
  const { cookie } = await s.signIn('bad-ranges@example.com');
  for (const [query, pattern] of [
    [`from=${daysAgo(1)}&to=${daysAgo(3)}`, /from must not be after to/],
    ['from=2026-02-30', /from is not a day/],
    [`from=${daysAgo(400)}&to=${daysAgo(0)}`, /at most 366 days/],
    ['from=yesterday', /from/],
    ['format=xlsx', /format/],
  ] as const) {
    const res = await s.request(`/api/usage?${query}`, { cookie });
    assert.equal(res.status, 400, query);
    const body = (await res.json()) as { error: string; code: string };
    assert.equal(body.code, 'validation', query);
    assert.match(body.error, pattern, query);
  }
  assert.equal((await s.request('/api/usage?format=csv')).status, 401, 'no session, no report');
});
