// Through the project's own client SDK (client/), as an integration test of both.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { VoxsmithClient, VoxsmithError, type Gender, type Voice } from '../../client/index.ts';
import { useService } from '../helpers/fixture.ts';

let client: VoxsmithClient;
const s = useService({}, async () => {
  client = new VoxsmithClient({ baseUrl: s.base });
});

type V = Voice;

/** A 400 with the error body, as the SDK reports it. */
async function rejects400(work: Promise<unknown>, what: string): Promise<void> {
  await assert.rejects(
    work,
    (err: unknown) => err instanceof VoxsmithError && err.status === 400 && err.message.length > 0 && err.code === 'validation',
    what,
  );
}

describe('voices: list', () => {
  test('public, at least 20 voices in 10 languages, with full metadata and nothing internal', async () => {
    const all = await client.listVoices();
    assert.ok(all.length >= 20);
    assert.ok(new Set(all.map((v) => v.language.split('-')[0])).size >= 10);
    for (const v of all) {
      assert.match(v.id, /^[a-z0-9-]+$/);
      for (const field of ['name', 'language', 'language_name', 'engine', 'description'] as const)
        assert.equal(typeof v[field], 'string', `${v.id}.${field}`);
      assert.ok(['female', 'male', 'neutral'].includes(v.gender));
      assert.equal(v.source, 'builtin');
      assert.ok(Array.isArray(v.tags));
      assert.ok(!('spec' in v) && !('genome' in v) && !('owner_id' in v), 'internal fields hidden');
    }
    assert.ok(all.some((v) => v.engine === 'flite') && all.some((v) => v.engine === 'espeak'));
  });

  test('language=en matches en-US and en-GB; a full tag matches exactly; case-insensitive', async () => {
    const en = await client.listVoices({ language: 'en' });
    const tags = new Set(en.map((v) => v.language));
    assert.ok(tags.has('en-US') && tags.has('en-GB'));
    assert.ok(en.every((v) => v.language.toLowerCase().startsWith('en')));
    const gb = await client.listVoices({ language: 'EN-gb' });
    assert.ok(gb.length > 0 && gb.every((v) => v.language === 'en-GB'));
  });

  test('gender filters exactly and combines with language', async () => {
    const female = await client.listVoices({ gender: 'female' });
    assert.ok(female.length > 0 && female.every((v) => v.gender === 'female'));
    const deMale = await client.listVoices({ language: 'de', gender: 'male' });
    assert.ok(deMale.length > 0 && deMale.every((v) => v.gender === 'male' && v.language.startsWith('de')));
    assert.deepEqual(await client.listVoices({ language: 'xx' }), []);
  });

  test('malformed filters are 400 {error}', async () => {
    await rejects400(client.listVoices({ language: '<script>' }), 'markup as a language');
    await rejects400(client.listVoices({ language: 'a'.repeat(300) }), 'an overlong language');
    await rejects400(client.listVoices({ gender: 'robot' as Gender }), 'an unknown gender');
  });
});

describe('voices: search', () => {
  test('"british female" ranks a female en-GB voice first', async () => {
    const [first] = await client.searchVoices('british female');
    assert.equal(first.language, 'en-GB');
    assert.equal(first.gender, 'female');
  });

  test('"german man" ranks a male German voice first', async () => {
    const [first] = await client.searchVoices('german man');
    assert.ok(first.language.startsWith('de'));
    assert.equal(first.gender, 'male');
  });

  for (const [q, check] of [
    ['deutsch', (v: V) => v.language.startsWith('de')],
    ['brazilian', (v: V) => v.language === 'pt-BR'],
    ['scottish', (v: V) => v.tags.some((t) => /scottish/i.test(t))],
    ['germna', (v: V) => v.language.startsWith('de')],
    ['portug', (v: V) => v.language.startsWith('pt')],
    ['woman', (v: V) => v.gender === 'female'],
  ] as const) {
    test(`"${q}" finds the right voices first`, async () => {
      const found = await client.searchVoices(q);
      assert.ok(found.length > 0);
      assert.ok(check(found[0]), `${q}: first was ${found[0].id}`);
    });
  }

  test('no match is an empty list; missing or blank q is 400', async () => {
    assert.deepEqual(await client.searchVoices('zzqxxv'), []);
    for (const q of ['', '  ']) await rejects400(client.searchVoices(q), JSON.stringify(q));
    const res = await s.request('/api/voices/search');
    assert.equal(res.status, 400, 'q missing');
    assert.equal(typeof ((await res.json()) as { error: unknown }).error, 'string');
  });

  test('limit caps the number of results', async () => {
    const found = await client.searchVoices('english', { limit: 3 });
    assert.equal(found.length, 3);
  });
});
