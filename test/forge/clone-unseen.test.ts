// Clones of speakers nobody tuned the forge on keep their pace and pitch on words the sample did not
// contain: each clone reads a held-out text through /v1/speak, and the speaker's own reading of that
// text is the yardstick (same words, so their sounding durations compare directly, whatever the voices).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { getBuiltinVoice } from '../../src/voices/builtin.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { measureBytes, SAMPLE_TEXT, semitonesBetween, speak, uploadClone } from './helpers.ts';
import { librivoxReading, recordFestival, SKIP_NO_FESTIVAL, SKIP_NO_LIBRIVOX, type Reading } from './unseen-speakers.ts';

interface CloneBody {
  voice: {
    id: string;
    gender: string;
    language: string;
    genome: { base_voice: string };
    features: {
      base_voice: string;
      fit: { pitch_semitones: number; rate_percent: number; held_out: boolean; rate_measure: string };
    };
  };
}

const HELD_OUT_TEXT =
  'Nobody expected the letter to arrive so soon, and when it did, the whole family gathered in the kitchen to read it. ' +
  'It said very little, but it said enough.';

let s: TestServer;
let key: string;
before(async () => {
  s = await startServer();
  await s.app.services.synthesizer.ready();
  key = (await s.newKey('unseen@example.com')).key;
});
after(async () => {
  await s?.close();
});

/** Clones `sample`, then compares the clone's reading of `heldOut.text` with the speaker's own. */
async function cloneAndCompare(name: string, sample: Reading, heldOut: Reading, withTranscript: boolean, language = 'en'): Promise<CloneBody['voice']> {
  const res = await uploadClone(s, key, sample.wav, { name, language, transcript: withTranscript ? sample.text : undefined });
  assert.equal(res.status, 201, await res.clone().text());
  const { voice } = (await res.json()) as CloneBody;
  assert.equal(voice.features.fit.held_out, true);
  assert.equal(voice.features.fit.rate_measure, withTranscript ? 'transcript' : 'rhythm');
  assert.ok(Number.isFinite(voice.features.fit.pitch_semitones) && Number.isFinite(voice.features.fit.rate_percent));

  const speaker = await measureBytes(heldOut.wav);
  const clone = await measureBytes(await speak(s, key, voice.id, heldOut.text));
  const pace = speaker.sounding_seconds / clone.sounding_seconds - 1;
  const pitch = semitonesBetween(speaker.pitch_hz, clone.pitch_hz);
  const report = `${name} on ${voice.features.base_voice}: pace ${(pace * 100).toFixed(1)} %, pitch ${pitch.toFixed(2)} st (stored fit ${JSON.stringify(voice.features.fit)})`;
  console.log(report);
  assert.ok(Math.abs(pace) <= 0.1, `pace: ${report}`);
  assert.ok(Math.abs(pitch) <= 1, `pitch: ${report}`);
  return voice;
}

describe("festival's HTS voice (festvox-us-slt-hts)", { skip: SKIP_NO_FESTIVAL }, () => {
  const sample = (): Reading => ({ wav: recordFestival('festival-slt-hts', SAMPLE_TEXT), text: SAMPLE_TEXT });
  const heldOut = (): Reading => ({ wav: recordFestival('festival-slt-hts', HELD_OUT_TEXT), text: HELD_OUT_TEXT });
  for (const withTranscript of [false, true]) {
    test(`a clone ${withTranscript ? 'given' : 'without'} the transcript keeps its pace (10 %) and pitch (1 st) on new words`, async () => {
      const voice = await cloneAndCompare(`slt hts ${withTranscript}`, sample(), heldOut(), withTranscript);
      assert.equal(voice.gender, 'female');
    });
  }
});

describe('a LibriVox reader (pocketsphinx-testdata)', { skip: SKIP_NO_LIBRIVOX }, () => {
  for (const withTranscript of [false, true]) {
    test(`a clone ${withTranscript ? 'given' : 'without'} the transcript keeps his pace (10 %) and pitch (1 st) on new words`, async () => {
      const voice = await cloneAndCompare(`reader ${withTranscript}`, librivoxReading(['0870', '0880', '0890']), librivoxReading(['0920', '0930']), withTranscript);
      assert.equal(voice.gender, 'male');
    });
  }
});

describe('base choice', { skip: SKIP_NO_FESTIVAL }, () => {
  test("a male American speaker (festival's kal) gets a male en-US base, and keeps his pace", async () => {
    const voice = await cloneAndCompare(
      'kal',
      { wav: recordFestival('festival-kal', SAMPLE_TEXT), text: SAMPLE_TEXT },
      { wav: recordFestival('festival-kal', HELD_OUT_TEXT), text: HELD_OUT_TEXT },
      false,
    );
    assert.equal(voice.gender, 'male');
    assert.equal(voice.language, 'en-US');
    const base = getBuiltinVoice(voice.genome.base_voice);
    assert.equal(base?.gender, 'male', voice.genome.base_voice);
    assert.equal(base?.language, 'en-US', voice.genome.base_voice);
  });
});
