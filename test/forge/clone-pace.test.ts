// A clone fitted on a passage full of pauses reads new sentences at its speaker's pace: festival's HTS slt and
// kal voices read the passage (the upload) and ten sentences it does not contain (the yardstick); each clone
// reads the same ten sentences through /v1/speak. Same words on both sides, so the seconds that sound (pauses
// left out) compare directly, and so do the median pitches.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';
import { semitonesBetween, speak, uploadClone } from './helpers.ts';
import { NEW_SENTENCES, PAUSE_RICH_PASSAGE } from './pace-texts.ts';
import { measureReadings, type ReadingsMeasure } from './readings.ts';
import { recordFestival, SKIP_NO_FESTIVAL, type FestivalSpeaker } from './unseen-speakers.ts';

interface CloneBody {
  voice: { id: string; features: { base_voice: string; fit: Record<string, unknown> } };
}

const SPEAKERS: ReadonlyArray<[FestivalSpeaker, string]> = [
  ['festival-slt-hts', "festival's HTS slt"],
  ['festival-kal', "festival's kal"],
];

interface Recordings {
  passage: Buffer;
  sentences: Buffer[];
}
const recordings = new Map<FestivalSpeaker, Recordings>();

let s: TestServer;
let key: string;
before(async () => {
  // Festival runs synchronously: all of it before the server starts, so that no connection idles through it.
  if (!SKIP_NO_FESTIVAL) {
    for (const [speaker] of SPEAKERS) {
      recordings.set(speaker, {
        passage: recordFestival(speaker, PAUSE_RICH_PASSAGE),
        sentences: NEW_SENTENCES.map((t) => recordFestival(speaker, t)),
      });
    }
  }
  // Measuring a clone's readings holds this process (server and client alike) for seconds: the server must not
  // close an idle connection meanwhile, or the client may send its next request on a socket that is closing.
  s = await startServer({ env: { KEEP_ALIVE_TIMEOUT_MS: '600000' } });
  await s.app.services.synthesizer.ready();
  key = (await s.newKey('pace@example.com')).key;
});
after(async () => {
  await s?.close();
});

for (const [speaker, label] of SPEAKERS) {
  describe(`${label}, cloned from a pause-rich passage`, { skip: SKIP_NO_FESTIVAL }, () => {
    let own: ReadingsMeasure | undefined;
    const recorded = (): Recordings => recordings.get(speaker) as Recordings;
    const yardstick = async (): Promise<ReadingsMeasure> => (own ??= await measureReadings(recorded().sentences));
    for (const withTranscript of [false, true]) {
      test(`${withTranscript ? 'given' : 'without'} the transcript, reads 10 new sentences within 10 % of the speaker's pace and 1 semitone of the pitch`, async () => {
        const res = await uploadClone(s, key, recorded().passage, {
          name: `${speaker} ${withTranscript}`,
          language: 'en',
          transcript: withTranscript ? PAUSE_RICH_PASSAGE : undefined,
        });
        assert.equal(res.status, 201, await res.clone().text());
        const { voice } = (await res.json()) as CloneBody;
        const theirs = await yardstick();
        // One at a time: a key may run only a few syntheses at once.
        const readings: Uint8Array[] = [];
        for (const t of NEW_SENTENCES) readings.push(await speak(s, key, voice.id, t));
        const clone = await measureReadings(readings);
        const pace = clone.soundingSeconds / theirs.soundingSeconds - 1;
        const pitch = semitonesBetween(theirs.pitchHz, clone.pitchHz);
        const report =
          `${label} ${withTranscript ? 'with' : 'without'} transcript on ${voice.features.base_voice}: ` +
          `${theirs.soundingSeconds.toFixed(2)} s vs clone ${clone.soundingSeconds.toFixed(2)} s (${(pace * 100).toFixed(1)} % longer), ` +
          `pitch ${pitch.toFixed(2)} st; fit ${JSON.stringify(voice.features.fit)}`;
        console.log(report);
        assert.ok(Math.abs(pace) <= 0.1, `pace: ${report}`);
        assert.ok(Math.abs(pitch) <= 1, `pitch: ${report}`);
      });
    }
  });
}
