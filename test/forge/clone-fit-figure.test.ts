// The stored fit figure says what the clone does: `features.fit.rate_percent` is the clone's pace against its
// speaker's, on the measure the pace checks use (the speaker's sounding seconds over the clone's on the same
// words, + = clone faster). The speakers are the service's own voices rendered faster or slower than their
// natural pace (so no outside program is needed); each clone and its speaker then read ten sentences neither the
// sample nor the fit contained, and the pace measured on them must agree with the stored figure.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useService } from '../helpers/fixture.ts';
import { SAMPLE_TEXT, uploadClone } from './helpers.ts';
import { NEW_SENTENCES } from './pace-texts.ts';
import { measureReadings } from './readings.ts';

interface CloneBody {
  voice: { id: string; features: { base_voice: string; fit: { rate_percent: number; rate_measure: string; held_out: boolean } } };
}

let key: string;
// Measuring readings holds this process for seconds: the server must not close an idle connection meanwhile.
const s = useService({ env: { KEEP_ALIVE_TIMEOUT_MS: '600000' } }, async () => {
  await s.app.services.synthesizer.ready();
  key = (await s.newKey('fit-figure@example.com')).key;
});

async function speakWav(voice_id: string, text: string, speed?: number): Promise<Uint8Array> {
  const res = await s.request('/v1/speak', { json: { text, voice_id, format: 'wav', ...(speed ? { speed } : {}) }, bearer: key });
  assert.equal(res.status, 200, await res.clone().text());
  return new Uint8Array(await res.arrayBuffer());
}

// Agreement between the stored figure and the pace on new words: with a transcript the figure is the pace on the
// sample's words, which carries over to new words within the few percent a voice's pace varies from text to
// text; without one it is an articulation rate, which depends on the words by several percent more.
const AGREEMENT = { transcript: 0.04, rhythm: 0.08 };

const SPEAKERS: ReadonlyArray<[string, number]> = [
  ['espeak-en-us-male-1', 1.2],
  ['flite-slt', 0.85],
];

describe('the stored rate figure is the pace the clone keeps on new words', () => {
  for (const [voice, speed] of SPEAKERS) {
    for (const withTranscript of [true, false]) {
      test(`${voice} at speed ${speed}, ${withTranscript ? 'with' : 'without'} the transcript`, async () => {
        const sample = await speakWav(voice, SAMPLE_TEXT, speed);
        const res = await uploadClone(s, key, sample, {
          name: `${voice} ${speed} ${withTranscript}`,
          language: 'en',
          transcript: withTranscript ? SAMPLE_TEXT : undefined,
        });
        assert.equal(res.status, 201, await res.clone().text());
        const { voice: clone } = (await res.json()) as CloneBody;
        const fit = clone.features.fit;
        assert.equal(fit.rate_measure, withTranscript ? 'transcript' : 'rhythm');

        const theirs: Uint8Array[] = [];
        const ours: Uint8Array[] = [];
        for (const t of NEW_SENTENCES) {
          theirs.push(await speakWav(voice, t, speed));
          ours.push(await speakWav(clone.id, t));
        }
        const speaker = await measureReadings(theirs);
        const cloned = await measureReadings(ours);
        const pace = speaker.soundingSeconds / cloned.soundingSeconds - 1;
        const report = `${voice} x${speed} on ${clone.features.base_voice}: pace on new words ${(pace * 100).toFixed(1)} %, stored ${fit.rate_percent} %`;
        console.log(report);
        assert.ok(Math.abs(fit.rate_percent / 100 - pace) <= AGREEMENT[withTranscript ? 'transcript' : 'rhythm'], report);
      });
    }
  }
});
