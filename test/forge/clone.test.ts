// Cloning end to end: recordings of known speakers (Debian's flite and espeak-ng programs) are uploaded,
// and each clone, made to read the same text through /v1/speak, must measure like its speaker.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useService } from '../helpers/fixture.ts';
import { measureBytes, recordSpeaker, semitonesBetween, SKIP_NO_SPEAKERS, speak, transcode, uploadClone, type Speaker } from './helpers.ts';

interface CloneBody {
  voice: {
    id: string;
    name: string;
    language: string;
    gender: string;
    engine: string;
    source: string;
    description: string;
    tags: string[];
    created_at: string;
    genome: { version: number; engine: string; base_voice: string; genes: Record<string, number> };
    features: {
      sample: { pitch_hz: number; syllables_per_second: number; seconds: number; container: string };
      clone: { pitch_hz: number; syllables_per_second: number };
      base_voice: string;
      fit: { renders: number };
    };
  };
}

let key: string;
let userId: string;
const s = useService({}, async () => {
  // Engine warm-up is the server's start-up, not part of any clone.
  await s.app.services.synthesizer.ready();
  const created = await s.newKey('cloner@example.com');
  key = created.key;
  const session = (await (await s.request('/api/auth/session', { cookie: created.cookie })).json()) as { user: { id: string } };
  userId = session.user.id;
});

const measured = new Map<Speaker, { sample: number; clone: number }>();

describe('cloning known speakers', { skip: SKIP_NO_SPEAKERS }, () => {
  const cases: Array<[Speaker, string]> = [
    ['flite-kal', 'male'],
    ['flite-slt', 'female'],
    ['espeak-low', 'male'],
    ['espeak-high', 'female'],
  ];
  for (const [speaker, gender] of cases) {
    test(`a clone of ${speaker} has its pitch (within 2 semitones) and speaking rate (within 15 %)`, async () => {
      const wav = recordSpeaker(speaker);
      const res = await uploadClone(s, key, wav, { name: `Clone of ${speaker}`, language: 'en' });
      assert.equal(res.status, 201, await res.clone().text());
      const { voice } = (await res.json()) as CloneBody;
      assert.match(voice.id, /^clone-[a-z0-9]+$/);
      assert.equal(voice.source, 'clone');
      assert.equal(voice.name, `Clone of ${speaker}`);
      assert.equal(voice.gender, gender);
      assert.match(voice.language, /^en-/);
      assert.equal(voice.genome.version, 1);
      assert.equal(voice.features.sample.container, 'wav');
      assert.ok(voice.features.fit.renders >= 1 && voice.features.fit.renders <= 4);

      const sample = await measureBytes(wav);
      const clone = await measureBytes(await speak(s, key, voice.id));
      const pitchError = semitonesBetween(sample.pitch_hz, clone.pitch_hz);
      const rateError = clone.syllables_per_second / sample.syllables_per_second - 1;
      assert.ok(Math.abs(pitchError) <= 2, `pitch ${clone.pitch_hz} Hz vs ${sample.pitch_hz} Hz (${pitchError.toFixed(2)} st)`);
      assert.ok(Math.abs(rateError) <= 0.15, `rate ${clone.syllables_per_second} vs ${sample.syllables_per_second} syl/s`);
      measured.set(speaker, { sample: sample.pitch_hz, clone: clone.pitch_hz });
    });
  }

  test('clones of a low and a high voice are as far apart as the voices', () => {
    for (const [low, high] of [
      ['espeak-low', 'espeak-high'],
      ['flite-kal', 'flite-slt'],
    ] as const) {
      const a = measured.get(low);
      const b = measured.get(high);
      assert.ok(a && b, 'the clones above were made');
      const samples = semitonesBetween(a.sample, b.sample);
      const clones = semitonesBetween(a.clone, b.clone);
      assert.ok(samples > 5, `the samples differ by ${samples.toFixed(1)} st`);
      assert.ok(Math.abs(clones - samples) <= 2, `clones differ by ${clones.toFixed(1)} st, samples by ${samples.toFixed(1)} st`);
    }
  });
});

describe('uploads', { skip: SKIP_NO_SPEAKERS }, () => {
  test('MP3, Ogg Vorbis, Ogg Opus and FLAC are recognised by their bytes, not the declared type', async () => {
    const wav = recordSpeaker('flite-slt');
    const formats: Array<[string, string[], string]> = [
      ['mp3', ['-c:a', 'libmp3lame', '-b:a', '64k'], 'mp3'],
      ['ogg', ['-c:a', 'libvorbis'], 'ogg-vorbis'],
      ['opus', ['-c:a', 'libopus', '-b:a', '32k'], 'ogg-opus'],
      ['flac', ['-c:a', 'flac'], 'flac'],
    ];
    for (const [ext, args, container] of formats) {
      const bytes = transcode(wav, ext, args);
      // Declared as something else entirely, with a misleading file name.
      const res = await uploadClone(s, key, bytes, { name: `slt ${ext}`, contentType: 'application/octet-stream', fileName: 'voice.wav' });
      assert.equal(res.status, 201, `${ext}: ${await res.clone().text()}`);
      const { voice } = (await res.json()) as CloneBody;
      assert.equal(voice.features.sample.container, container);
      assert.equal(voice.gender, 'female', ext);
    }
  });

  test('the upload is kept in the database under a server-chosen name', async () => {
    const wav = recordSpeaker('flite-kal');
    const res = await uploadClone(s, key, wav, { name: 'kept', fileName: '../../etc/passwd' });
    assert.equal(res.status, 201);
    const { voice } = (await res.json()) as CloneBody;
    const sample = await s.app.services.ownedVoices.getSample(voice.id, userId);
    assert.ok(sample);
    assert.equal(sample.fileName, `${voice.id}.wav`);
    assert.equal(sample.container, 'wav');
    assert.deepEqual(Buffer.from(sample.bytes), wav);
  });

  test('language picks the base voices: a German clone speaks German', async () => {
    const res = await uploadClone(s, key, recordSpeaker('espeak-low'), { name: 'Deutsch', language: 'de' });
    assert.equal(res.status, 201, await res.clone().text());
    const { voice } = (await res.json()) as CloneBody;
    assert.match(voice.language, /^de/);
    assert.equal(voice.engine, 'espeak');
    assert.equal(voice.gender, 'male');
    const unknown = await uploadClone(s, key, recordSpeaker('espeak-low'), { name: 'x', language: 'xyz' });
    assert.equal(unknown.status, 400);
    assert.match(((await unknown.json()) as { error: string }).error, /xyz/);
  });
});
