import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BUILTIN_VOICES, DEFAULT_VOICE_ID, getBuiltinVoice, resolveBuiltin } from '../../src/voices/builtin.ts';
import { filterVoices } from '../../src/voices/filter.ts';
import { GENDERS, VOICE_ID_PATTERN, toPublicVoice } from '../../src/voices/voice.ts';

// RFC 5646 langtag, well-formedness only: language[-script][-region]*(-variant)*(-extension)*[-privateuse].
const BCP47 =
  /^(?:[a-z]{2,3}(?:-[a-z]{3}){0,3}|[a-z]{5,8})(?:-[a-z]{4})?(?:-(?:[a-z]{2}|\d{3}))?(?:-(?:[a-z\d]{5,8}|\d[a-z\d]{3}))*(?:-[\da-wy-z](?:-[a-z\d]{2,8})+)*(?:-x(?:-[a-z\d]{1,8})+)?$/i;

const MAJOR = ['en-US', 'en-GB', 'de', 'fr', 'es', 'it', 'pt-BR', 'pt-PT', 'nl', 'ru', 'pl', 'sv', 'cmn', 'ja', 'hi', 'ar', 'tr', 'ko'];

test('the catalog is large and multilingual', () => {
  assert.ok(BUILTIN_VOICES.length >= 20, `${BUILTIN_VOICES.length} voices`);
  const primaries = new Set(BUILTIN_VOICES.map((v) => v.language.split('-')[0]));
  assert.ok(primaries.size >= 10, `${primaries.size} languages`);
  // espeak-ng brings about a hundred languages; far fewer means the generator dropped most of them.
  assert.ok(primaries.size >= 90, `${primaries.size} languages`);
});

test('ids are unique and URL-safe', () => {
  const ids = BUILTIN_VOICES.map((v) => v.id);
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids) {
    assert.match(id, VOICE_ID_PATTERN);
    assert.equal(encodeURIComponent(id), id);
  }
});

test('every voice has a valid BCP 47 language, a gender and real metadata', () => {
  for (const v of BUILTIN_VOICES) {
    assert.match(v.language, BCP47, v.id);
    assert.doesNotThrow(() => Intl.getCanonicalLocales(v.language), v.id);
    assert.ok(GENDERS.includes(v.gender), v.id);
    assert.equal(v.source, 'builtin');
    assert.equal(v.engine, v.spec.engine);
    assert.ok(v.name.trim().length > 0, v.id);
    assert.ok(v.description.length >= 40, `${v.id}: ${v.description}`);
    assert.ok(v.tags.length > 0, v.id);
    assert.notEqual(v.language_name.toLowerCase(), v.language.split('-')[0].toLowerCase(), `${v.id}: language_name is a code`);
    assert.match(v.language_name, /^\p{Lu}/u, v.id);
  }
});

test('every major language has a female and a male voice', () => {
  for (const language of MAJOR) {
    for (const gender of ['female', 'male'] as const) {
      const found = filterVoices(BUILTIN_VOICES, { language, gender });
      assert.ok(found.length >= 1, `${language} ${gender}`);
    }
  }
});

test('metadata carries native names and accent words', () => {
  const de = getBuiltinVoice('espeak-de-female-1');
  assert.ok(de);
  assert.equal(de.language, 'de-DE');
  assert.equal(de.language_name, 'German');
  assert.ok(de.tags.includes('Deutsch'));
  assert.ok(getBuiltinVoice('espeak-pt-br-male-1')?.tags.includes('Brazilian'));
  assert.ok(getBuiltinVoice('espeak-es-419-female-1')?.tags.includes('Mexican'));
  assert.ok(getBuiltinVoice('espeak-en-gb-male-1')?.tags.includes('British'));
  assert.ok(getBuiltinVoice('espeak-en-us-male-1')?.tags.includes('American'));
  const awb = getBuiltinVoice('flite-awb');
  assert.equal(awb?.language, 'en-GB');
  assert.ok(awb?.tags.includes('Scottish'));
});

test('flite voices are all there with the genders the engine has', () => {
  const flite = BUILTIN_VOICES.filter((v) => v.engine === 'flite');
  assert.deepEqual(flite.map((v) => [v.spec.base, v.gender, v.language]).sort(), [
    ['awb', 'male', 'en-GB'],
    ['kal16', 'male', 'en-US'],
    ['rms', 'male', 'en-US'],
    ['slt', 'female', 'en-US'],
  ]);
});

test('default resolves to the most natural English voice', () => {
  assert.equal(DEFAULT_VOICE_ID, 'flite-slt');
  assert.equal(resolveBuiltin('default')?.id, 'flite-slt');
  assert.equal(resolveBuiltin('espeak-de-male-1')?.spec.base, 'de');
  assert.equal(resolveBuiltin('no-such-voice'), undefined);
  assert.equal(getBuiltinVoice('default'), undefined);
  assert.equal(BUILTIN_VOICES[0].id, DEFAULT_VOICE_ID);
});

test('the catalog is frozen and the public view hides internals', () => {
  const v = BUILTIN_VOICES[0];
  assert.throws(() => {
    (v.tags as string[]).push('x');
  });
  const pub = toPublicVoice({ ...v, owner_id: 'u1', genome: { pitch: 1 }, parents: ['a', 'b'], created_at: '2024-01-01T00:00:00Z' });
  assert.deepEqual(Object.keys(pub).sort(), [
    'created_at',
    'description',
    'engine',
    'gender',
    'id',
    'language',
    'language_name',
    'name',
    'parents',
    'source',
    'tags',
  ]);
  assert.ok(!('spec' in toPublicVoice(v)));
  assert.ok(!('parents' in toPublicVoice(v)));
  assert.equal(JSON.stringify(pub).includes('u1'), false);
});
