import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
before(async () => {
  s = await startServer();
});
after(async () => {
  await s.close();
});

interface V {
  id: string;
  name: string;
  language: string;
  language_name: string;
  gender: string;
  engine: string;
  source: string;
  description: string;
  tags: string[];
}

async function voices(path: string): Promise<V[]> {
  const res = await s.request(path);
  assert.equal(res.status, 200);
  const body = (await res.json()) as { voices: V[] };
  assert.ok(Array.isArray(body.voices));
  return body.voices;
}

describe('voices: list', () => {
  test('public, at least 20 voices in 10 languages, with full metadata and nothing internal', async () => {
    const all = await voices('/api/voices');
    assert.ok(all.length >= 20);
    assert.ok(new Set(all.map((v) => v.language.split('-')[0])).size >= 10);
    for (const v of all) {
      assert.match(v.id, /^[a-z0-9-]+$/);
      for (const field of ['name', 'language', 'language_name', 'engine', 'description'] as const) assert.equal(typeof v[field], 'string', `${v.id}.${field}`);
      assert.ok(['female', 'male', 'neutral'].includes(v.gender));
      assert.equal(v.source, 'builtin');
      assert.ok(Array.isArray(v.tags));
      assert.ok(!('spec' in v) && !('genome' in v) && !('owner_id' in v), 'internal fields hidden');
    }
    assert.ok(all.some((v) => v.engine === 'flite') && all.some((v) => v.engine === 'espeak'));
  });

  test('language=en matches en-US and en-GB; a full tag matches exactly; case-insensitive', async () => {
    const en = await voices('/api/voices?language=en');
    const tags = new Set(en.map((v) => v.language));
    assert.ok(tags.has('en-US') && tags.has('en-GB'));
    assert.ok(en.every((v) => v.language.toLowerCase().startsWith('en')));
    const gb = await voices('/api/voices?language=EN-gb');
    assert.ok(gb.length > 0 && gb.every((v) => v.language === 'en-GB'));
  });

  test('gender filters exactly and combines with language', async () => {
    const female = await voices('/api/voices?gender=female');
    assert.ok(female.length > 0 && female.every((v) => v.gender === 'female'));
    const deMale = await voices('/api/voices?language=de&gender=male');
    assert.ok(deMale.length > 0 && deMale.every((v) => v.gender === 'male' && v.language.startsWith('de')));
    assert.deepEqual(await voices('/api/voices?language=xx'), []);
  });

  test('malformed filters are 400 {error}', async () => {
    for (const q of ['language=%3Cscript%3E', `language=${'a'.repeat(300)}`, 'gender=robot']) {
      const res = await s.request(`/api/voices?${q}`);
      assert.equal(res.status, 400, q);
      assert.equal(typeof ((await res.json()) as { error: unknown }).error, 'string');
    }
  });
});

describe('voices: search', () => {
  test('"british female" ranks a female en-GB voice first', async () => {
    const [first] = await voices('/api/voices/search?q=british%20female');
    assert.equal(first.language, 'en-GB');
    assert.equal(first.gender, 'female');
  });

  test('"german man" ranks a male German voice first', async () => {
    const [first] = await voices('/api/voices/search?q=german%20man');
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
      const found = await voices(`/api/voices/search?q=${encodeURIComponent(q)}`);
      assert.ok(found.length > 0);
      assert.ok(check(found[0]), `${q}: first was ${found[0].id}`);
    });
  }

  test('no match is an empty list; missing or blank q is 400', async () => {
    assert.deepEqual(await voices('/api/voices/search?q=zzqxxv'), []);
    for (const path of ['/api/voices/search', '/api/voices/search?q=', '/api/voices/search?q=%20%20']) {
      const res = await s.request(path);
      assert.equal(res.status, 400, path);
      assert.equal(typeof ((await res.json()) as { error: unknown }).error, 'string');
    }
  });
});
