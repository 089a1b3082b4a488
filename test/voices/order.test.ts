// Listing order and labels on their own: Accept-Language parsing, natural voices and the caller's languages
// first, unique readable labels.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILTIN_VOICES } from '../../src/voices/builtin.ts';
import { removeVoice, NotInstalledError } from '../../src/voices/install/installer.ts';
import { voiceLabels } from '../../src/voices/labels.ts';
import { acceptedLanguages, orderVoices } from '../../src/voices/order.ts';
import type { Voice } from '../../src/voices/voice.ts';

test('Accept-Language: by q, malformed and q=0 entries dropped, English without a header', () => {
  assert.deepEqual(acceptedLanguages('de-CH, de;q=0.9, en;q=0.8, *;q=0.5'), ['de-CH', 'de', 'en']);
  assert.deepEqual(acceptedLanguages('fr;q=0.2, es'), ['es', 'fr']);
  assert.deepEqual(acceptedLanguages('xx-<script>, pt-BR;q=0'), ['en']);
  assert.deepEqual(acceptedLanguages(undefined), ['en']);
  assert.deepEqual(acceptedLanguages(''), ['en']);
});

const natural = (id: string, language: string, engine: 'kokoro' | 'piper', tags: string[] = []): Voice => ({
  id,
  name: id,
  language,
  language_name: language.startsWith('de') ? 'German' : 'English',
  gender: 'female',
  engine,
  source: 'builtin',
  description: '',
  tags,
  spec: { engine, base: engine === 'kokoro' ? `kokoro-v1.0/${id.slice(7).replace('-', '_')}` : id },
});

test('order: natural voices in the caller’s languages, then their other voices, then natural ones elsewhere, then the rest by language name', () => {
  const voices = [
    ...BUILTIN_VOICES,
    natural('piper-de', 'de-DE', 'piper', ['medium']),
    natural('kokoro-af-heart', 'en-US', 'kokoro'),
    natural('piper-en', 'en-US', 'piper', ['high']),
  ];
  const de = orderVoices(voices, ['de']).map((v) => v.id);
  assert.equal(de[0], 'piper-de');
  const firstOther = de.findIndex((id) => !id.startsWith('espeak-de') && id !== 'piper-de');
  assert.ok(
    de.slice(1, firstOther).every((id) => id.startsWith('espeak-de')),
    'German built-ins next',
  );
  assert.deepEqual(
    de.slice(firstOther, firstOther + 2),
    ['kokoro-af-heart', 'piper-en'],
    'then natural voices of other languages, best first',
  );
  const rest = orderVoices(voices, ['de']).slice(firstOther + 2);
  assert.deepEqual(
    rest.slice(0, 4).map((v) => v.engine),
    ['flite', 'flite', 'flite', 'flite'],
    'the best-sounding built-ins first',
  );
  const names = rest.slice(4).map((v) => v.language_name);
  assert.deepEqual(names, [...names].sort(new Intl.Collator('en').compare), 'then the rest by language name');
  const en = orderVoices(voices).map((v) => v.id);
  assert.deepEqual(en.slice(0, 3), ['kokoro-af-heart', 'piper-en', 'flite-slt']);
});

test('labels: readable, nothing said twice, unique', () => {
  const labels = voiceLabels(BUILTIN_VOICES);
  assert.equal(labels.get('espeak-af-female-1'), 'Afrikaans (female) · Afrikaans (South Africa), espeak');
  assert.equal(labels.get('flite-awb'), 'Alan · British English, male, flite');
  assert.equal(new Set(labels.values()).size, BUILTIN_VOICES.length);
  const twins = voiceLabels([BUILTIN_VOICES[0], { ...BUILTIN_VOICES[0], id: 'flite-slt-2' }]);
  assert.deepEqual(
    [...twins.values()],
    ['Sally · American English, female, flite (flite-slt)', 'Sally · American English, female, flite (flite-slt-2)'],
  );
});

test('removing a voice names a file in VOICES_DIR, never a path', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'voxsmith-remove-'));
  const outside = mkdtempSync(join(tmpdir(), 'voxsmith-outside-'));
  try {
    writeFileSync(join(outside, 'x.onnx'), 'keep');
    for (const name of ['../x', `kokoro/../../${outside}/x`, 'kokoro..x', '/etc/passwd', '']) {
      await assert.rejects(removeVoice(dir, name), NotInstalledError, name);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});
