// A clone's base is chosen for intelligibility too: a LibriVox reader (a man) is cloned through the server, then
// his base and every other base he could have had (English, male) read six sentences through /v1/speak and
// pocketsphinx hears them. The base chosen may be at most 5 word-error points worse than the best of them, and
// the clone itself stays about as intelligible as its base. The sentences are not the ones the calibration
// ranked the bases on, so this checks that its ranking holds on other words.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeUpload } from '../../src/audio/decode.ts';
import { cloneCandidates, MAX_WER_GAP_POINTS } from '../../src/forge/clone.ts';
import { SKIP_NO_POCKETSPHINX, wordErrorRates, type Reading } from '../../scripts/lib/word-error-rate.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { speak, uploadClone } from './helpers.ts';
import { NEW_SENTENCES } from './pace-texts.ts';
import { librivoxReading, SKIP_NO_LIBRIVOX, type Reading as Recording } from './unseen-speakers.ts';

let s: TestServer;
let key: string;
let reader: Recording | undefined;
before(async () => {
  if (!SKIP_NO_LIBRIVOX) reader = librivoxReading(['0870', '0880', '0890', '0920', '0930']);
  s = await startServer({ env: { KEEP_ALIVE_TIMEOUT_MS: '600000' } });
  await s.app.services.synthesizer.ready();
  key = (await s.newKey('intelligible@example.com')).key;
});
after(async () => {
  await s?.close();
});

// Six of the sentences: enough to tell flite's voices (about 10 %) from espeak's (over 80 %) here, and the
// recognizer takes a while over each of a dozen voices.
const SENTENCES = NEW_SENTENCES.slice(0, 6);

/** Each voice's readings of the sentences, one /v1/speak request each. */
async function readingsOf(voiceId: string): Promise<Reading[]> {
  const readings: Reading[] = [];
  for (const text of SENTENCES) {
    const d = await decodeUpload(await speak(s, key, voiceId, text), { maxSeconds: 60 });
    readings.push({ samples: d.samples, rate: d.sampleRate, text });
  }
  return readings;
}

describe('base choice by intelligibility', { skip: SKIP_NO_LIBRIVOX || SKIP_NO_POCKETSPHINX }, () => {
  test('a LibriVox reader gets a base within 5 word-error points of the best male English base', async () => {
    const res = await uploadClone(s, key, (reader as Recording).wav, { name: 'reader', language: 'en' });
    assert.equal(res.status, 201, await res.clone().text());
    const { voice } = (await res.json()) as { voice: { id: string; gender: string; features: { base_voice: string } } };
    assert.equal(voice.gender, 'male');
    const chosen = voice.features.base_voice;

    const candidates = cloneCandidates('en').filter((c) => c.gender === 'male');
    const sets = new Map<string, Reading[]>();
    for (const v of [...candidates.map((c) => c.id), voice.id]) sets.set(v, await readingsOf(v));
    const all = await wordErrorRates(sets);
    const clone = all.get(voice.id) as number;
    const rates = new Map(candidates.map((c) => [c.id, all.get(c.id) as number]));
    const best = Math.min(...rates.values());
    const base = rates.get(chosen);
    const report = `base ${chosen} ${base?.toFixed(1)} %, clone ${clone.toFixed(1)} %, candidates ${JSON.stringify(Object.fromEntries([...rates].map(([id, w]) => [id, Math.round(w * 10) / 10])))}`;
    console.log(report);
    assert.ok(base !== undefined, `the base ${chosen} is not a male English candidate: ${report}`);
    assert.ok(base <= best + MAX_WER_GAP_POINTS, report);
    // The fit moves pitch and rate only: a clone no less intelligible than the best base allows, give or take a
    // few misheard words in six sentences.
    assert.ok(clone <= best + 2 * MAX_WER_GAP_POINTS, report);
  });
});
