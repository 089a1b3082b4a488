import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BUILTIN_VOICES } from '../../src/voices/builtin.ts';
import { filterVoices, isValidGenderQuery, isValidLanguageQuery, matchesLanguage, parseVoiceFilter } from '../../src/voices/filter.ts';

const languages = (voices: { language: string }[]) => new Set(voices.map((v) => v.language));

test('a primary subtag matches every region of the language, in any case', () => {
  const en = filterVoices(BUILTIN_VOICES, { language: 'en' });
  const tags = languages(en);
  assert.ok(tags.has('en-US') && tags.has('en-GB'), [...tags].join());
  assert.ok(en.every((v) => v.language.toLowerCase().startsWith('en-')));
  assert.deepEqual(filterVoices(BUILTIN_VOICES, { language: 'EN' }), en);
  assert.ok(filterVoices(BUILTIN_VOICES, { language: 'de' }).every((v) => v.language === 'de-DE'));
  assert.equal(filterVoices(BUILTIN_VOICES, { language: 'e' }).length, 0);
});

test('a full tag matches exactly, case-insensitively', () => {
  const gb = filterVoices(BUILTIN_VOICES, { language: 'en-gb' });
  assert.ok(gb.length >= 4);
  assert.deepEqual([...languages(gb)], ['en-GB']);
  assert.deepEqual(filterVoices(BUILTIN_VOICES, { language: 'EN-GB' }), gb);
  assert.deepEqual(filterVoices(BUILTIN_VOICES, { language: 'en_GB' }), gb);
  assert.deepEqual([...languages(filterVoices(BUILTIN_VOICES, { language: 'pt-BR' }))], ['pt-BR']);
  assert.equal(filterVoices(BUILTIN_VOICES, { language: 'en-AU' }).length, 0);
  assert.equal(filterVoices(BUILTIN_VOICES, { language: 'en-GB-x-nothing' }).length, 0);
});

test('gender filters exactly and combines with language', () => {
  const female = filterVoices(BUILTIN_VOICES, { gender: 'female' });
  assert.ok(female.length > 20 && female.every((v) => v.gender === 'female'));
  const deMale = filterVoices(BUILTIN_VOICES, { language: 'de', gender: 'male' });
  assert.ok(deMale.length >= 2);
  assert.ok(deMale.every((v) => v.gender === 'male' && v.language === 'de-DE'));
  const gbFemale = filterVoices(BUILTIN_VOICES, { language: 'en-GB', gender: 'female' });
  assert.ok(gbFemale.length >= 1 && gbFemale.every((v) => v.gender === 'female' && v.language === 'en-GB'));
  assert.equal(filterVoices(BUILTIN_VOICES, { gender: 'neutral' }).length, 0);
  assert.equal(filterVoices(BUILTIN_VOICES, {}).length, BUILTIN_VOICES.length);
});

test('macrolanguages find their members', () => {
  assert.ok(matchesLanguage('cmn', 'zh'));
  assert.ok(matchesLanguage('yue', 'ZH'));
  assert.ok(matchesLanguage('nb-NO', 'no'));
  assert.ok(!matchesLanguage('cmn', 'yue'));
  const zh = filterVoices(BUILTIN_VOICES, { language: 'zh' });
  assert.ok(languages(zh).has('cmn') && languages(zh).has('yue'));
});

test('query values are validated', () => {
  for (const good of ['en', 'EN', 'en-GB', 'en_us', 'es-419', 'cmn', 'zh-Hant-TW', 'art-x-pyash']) {
    assert.ok(isValidLanguageQuery(good), good);
  }
  for (const bad of ['', 'e', '<script>', 'en GB', 'en-', '-en', 'x'.repeat(300), 'en-GB-' + 'a'.repeat(40), 'dé', 42, null]) {
    assert.ok(!isValidLanguageQuery(bad), String(bad));
  }
  for (const good of ['female', 'male', 'neutral', 'Female', 'MALE']) assert.ok(isValidGenderQuery(good), good);
  for (const bad of ['', 'woman', 'robot', '<script>', 'f'.repeat(300), undefined]) assert.ok(!isValidGenderQuery(bad), String(bad));
});

test('parseVoiceFilter turns query strings into a filter or an error', () => {
  assert.deepEqual(parseVoiceFilter({}), { ok: true, filter: {} });
  assert.deepEqual(parseVoiceFilter({ language: '', gender: '' }), { ok: true, filter: {} });
  assert.deepEqual(parseVoiceFilter({ language: 'en-GB', gender: 'Female' }), {
    ok: true,
    filter: { language: 'en-GB', gender: 'female' },
  });
  const badLanguage = parseVoiceFilter({ language: '<script>alert(1)</script>' });
  assert.equal(badLanguage.ok, false);
  assert.ok(!badLanguage.ok && /language/.test(badLanguage.error));
  const badGender = parseVoiceFilter({ gender: 'x'.repeat(300) });
  assert.ok(!badGender.ok && /gender/.test(badGender.error));
  assert.equal(parseVoiceFilter({ language: ['en', 'de'] }).ok, false);
});
