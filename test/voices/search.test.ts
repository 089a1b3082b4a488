import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BUILTIN_VOICES, getBuiltinVoice } from '../../src/voices/builtin.ts';
import { createVoiceSearch, isValidSearchQuery } from '../../src/voices/search.ts';
import type { Voice } from '../../src/voices/voice.ts';

const index = createVoiceSearch(BUILTIN_VOICES);
const primary = (v: Voice) => v.language.split('-')[0];

test('"british female" ranks a female en-GB voice first and returns only those', () => {
  const found = index.search('british female');
  assert.ok(found.length >= 2);
  assert.equal(found[0].language, 'en-GB');
  assert.equal(found[0].gender, 'female');
  assert.ok(
    found.every((v) => v.gender === 'female' && v.language === 'en-GB'),
    found.map((v) => v.id).join(),
  );
});

test('"german man" ranks a male German voice first', () => {
  const found = index.search('german man');
  assert.ok(found.length >= 1);
  assert.equal(found[0].language, 'de-DE');
  assert.equal(found[0].gender, 'male');
  assert.ok(
    found.every((v) => v.gender === 'male'),
    'man must not drift into "mandarin" or "woman"',
  );
});

test('languages are found by their English and native names', () => {
  for (const q of ['german', 'deutsch', 'German', 'DEUTSCH']) {
    const found = index.search(q);
    assert.ok(found.length >= 2, q);
    assert.ok(
      found.every((v) => v.language === 'de-DE'),
      `${q}: ${found.map((v) => v.id).join()}`,
    );
  }
  assert.equal(primary(index.search('español')[0]), 'es');
  assert.equal(primary(index.search('français')[0]), 'fr');
  assert.equal(index.search('日本語')[0]?.language, 'ja-JP');
});

test('accent and region words', () => {
  const brazilian = index.search('brazilian');
  assert.ok(brazilian.length >= 2 && brazilian.every((v) => v.language === 'pt-BR'));
  const scottish = index.search('scottish');
  assert.ok(scottish[0].tags.includes('Scottish') && scottish[0].language === 'en-GB', scottish[0].id);
  assert.ok(scottish.some((v) => v.id === 'flite-awb'));
  assert.ok(index.search('mexican').every((v) => v.language === 'es-419'));
  assert.equal(index.search('american woman')[0].id, 'flite-slt');
});

test('typos and prefixes still find the voice', () => {
  const typo = index.search('germna');
  assert.ok(typo.length >= 1 && typo.every((v) => v.language === 'de-DE'), typo.map((v) => v.id).join());
  const prefix = index.search('portug');
  assert.ok(prefix.length >= 4);
  assert.ok(prefix.every((v) => primary(v) === 'pt'));
  assert.ok(prefix.some((v) => v.language === 'pt-BR') && prefix.some((v) => v.language === 'pt-PT'));
  assert.equal(index.search('brittish female')[0].language, 'en-GB');
  assert.equal(index.search('lucia')[0]?.name, 'Lucía');
});

test('gender words', () => {
  const woman = index.search('woman', undefined, 500);
  assert.ok(woman.length > 50);
  assert.ok(woman.every((v) => v.gender === 'female'));
  assert.ok(index.search('women').every((v) => v.gender === 'female'));
  assert.ok(index.search('masculine').every((v) => v.gender === 'male'));
  assert.ok(
    index.search('female', undefined, 500).every((v) => v.gender === 'female'),
    'female must not match male',
  );
});

test('no match gives an empty list; AND falls back to OR', () => {
  assert.deepEqual(index.search('zzqqxxvv'), []);
  assert.deepEqual(index.search('the a voice'), []);
  const either = index.search('klingon zzqqxxvv');
  assert.ok(either.length >= 1 && either.every((v) => v.language === 'tlh'));
});

test('limit and visibility', () => {
  assert.equal(index.search('female', undefined, 3).length, 3);
  const onlyFlite = index.search('american', (v) => v.engine === 'flite');
  assert.ok(onlyFlite.length >= 2 && onlyFlite.every((v) => v.engine === 'flite'));
});

test('owned voices are added, found only by whom may see them, and removed', () => {
  const search = createVoiceSearch(BUILTIN_VOICES);
  const base = getBuiltinVoice('espeak-de-female-1');
  assert.ok(base);
  const mine: Voice = {
    ...base,
    id: 'clone-abc123',
    name: 'Zephyrine',
    source: 'clone',
    description: 'My cloned narrator voice.',
    tags: ['narrator'],
    owner_id: 'user-1',
    created_at: '2024-05-01T12:00:00Z',
  };
  search.add(mine);
  assert.ok(search.has('clone-abc123'));
  const mineOnly = (v: Voice) => v.owner_id === undefined || v.owner_id === 'user-1';
  const othersOnly = (v: Voice) => v.owner_id === undefined || v.owner_id === 'user-2';
  assert.equal(search.search('zephyrine', mineOnly)[0]?.id, 'clone-abc123');
  assert.deepEqual(search.search('zephyrine', othersOnly), []);
  // Hidden voices must not block the OR fallback for the caller.
  assert.ok(search.search('zephyrine narrator german', othersOnly).every((v) => v.owner_id === undefined));
  assert.ok(search.search('deutsch narrator', mineOnly).some((v) => v.id === 'clone-abc123'));
  search.add({ ...mine, name: 'Quillon' });
  assert.deepEqual(search.search('zephyrine'), []);
  assert.equal(search.search('quillon')[0]?.id, 'clone-abc123');
  search.remove('clone-abc123');
  assert.ok(!search.has('clone-abc123'));
  assert.deepEqual(search.search('quillon'), []);
  assert.deepEqual(search.search('narrator'), []);
  search.remove('never-added');
});

test('search query validation', () => {
  for (const good of ['british female', ' german ', 'a'.repeat(200), '日本語']) assert.ok(isValidSearchQuery(good), good);
  for (const bad of ['', '   ', 'a'.repeat(201), 'tab\there', 'nul\u0000', undefined, 7, ['x']]) {
    assert.ok(!isValidSearchQuery(bad), JSON.stringify(bad));
  }
});
