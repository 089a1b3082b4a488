// Issue 44 V1: a voice's `.onnx.json` was trusted. `length_scale` 2000 took one sentence to 5.7 GB, and other odd
// values failed every request of the voice with a 500. Each hostile config here sits beside a real (generated)
// ONNX model: it is refused at load with one log line naming the file and the field, the voice is not listed nor
// spoken (a JSON 404, never a 500), and the good voices beside it speak. A model that makes far more audio than its
// text can speak is refused with a JSON 413, not passed on.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { piperConfig, piperModel, TEST_PHONEME_ID_MAP, voicesNpz, writeVoicesDir } from '../../helpers/onnx-models.ts';
import { startServer, type TestServer } from '../../helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'voxsmith-hostile-'));
let s: TestServer;
let key: string;

/** Piper voices whose config is hostile: file stem → [the config's change, what the log line names]. */
const HOSTILE: Record<string, [(config: Record<string, unknown>) => Record<string, unknown>, string]> = {
  'en_US-stretch-medium': [
    (c) => ({ ...c, inference: { noise_scale: 0.667, length_scale: 2000, noise_w: 0.8 } }),
    'inference.length_scale',
  ],
  'en_US-backwards-medium': [
    (c) => ({ ...c, inference: { noise_scale: 0.667, length_scale: -1, noise_w: 0.8 } }),
    'inference.length_scale',
  ],
  'en_US-noisy-medium': [(c) => ({ ...c, inference: { noise_scale: 1e9, length_scale: 1, noise_w: 0.8 } }), 'inference.noise_scale'],
  'en_US-wobbly-medium': [(c) => ({ ...c, inference: { noise_scale: 0.667, length_scale: 1, noise_w: 'loud' } }), 'inference.noise_w'],
  'en_US-bigid-medium': [(c) => ({ ...c, phoneme_id_map: { ...TEST_PHONEME_ID_MAP, a: [1e12] } }), 'phoneme_id_map'],
  'en_US-longid-medium': [(c) => ({ ...c, phoneme_id_map: { ...TEST_PHONEME_ID_MAP, a: Array(100_000).fill(9) } }), 'phoneme_id_map'],
  'en_US-nowhere-medium': [(c) => ({ ...c, espeak: { voice: 'xx-nowhere' } }), 'espeak.voice'],
  'en_US-rate-medium': [(c) => ({ ...c, audio: { sample_rate: 1e9, quality: 'medium' } }), 'audio.sample_rate'],
  'en_US-huge-medium': [(c) => ({ ...c, dataset: 'x'.repeat(2_000_000) }), 'bytes'],
  'en_US-longname-medium': [(c) => ({ ...c, dataset: 'x'.repeat(5000) }), 'dataset'],
};
/** Multi-speaker voices (a model with a `sid` input) whose speakers are hostile. */
const HOSTILE_SPEAKERS: Record<string, [(config: Record<string, unknown>) => Record<string, unknown>, string]> = {
  'en_US-crowd-low': [(c) => ({ ...c, num_speakers: 1e9, speaker_id_map: {} }), 'num_speakers'],
  'en_US-stranger-low': [(c) => ({ ...c, num_speakers: 2, speaker_id_map: { ann: 0, bob: 999 } }), 'speaker_id_map'],
};

before(async () => {
  writeVoicesDir(dir);
  for (const [stem, [change]] of Object.entries(HOSTILE)) {
    writeFileSync(join(dir, `${stem}.onnx`), piperModel());
    writeFileSync(
      join(dir, `${stem}.onnx.json`),
      JSON.stringify(change(piperConfig({ dataset: stem.split('-')[1] }) as Record<string, unknown>)),
    );
  }
  for (const [stem, [change]] of Object.entries(HOSTILE_SPEAKERS)) {
    writeFileSync(join(dir, `${stem}.onnx`), piperModel({ multiSpeaker: true }));
    const config = piperConfig({ dataset: stem.split('-')[1], speakers: ['ann', 'bob'] }) as Record<string, unknown>;
    writeFileSync(join(dir, `${stem}.onnx.json`), JSON.stringify(change(config)));
  }
  // A sound config on a model that babbles: a second of audio per phoneme id, twice the bound.
  writeFileSync(join(dir, 'en_US-babble-medium.onnx'), piperModel({ samplesPerId: 44_100 }));
  writeFileSync(join(dir, 'en_US-babble-medium.onnx.json'), JSON.stringify(piperConfig({ dataset: 'babble' })));
  // Kokoro's voices file, its config: one good voice, one with non-finite style values, one with a hostile name.
  writeFileSync(
    join(dir, 'voices-v1.0.bin'),
    voicesNpz({ af_alpha: () => 0.1, am_nan: () => Number.NaN, 'x/../../evil': () => 0.2, bf_huge: () => 1e30 }),
  );
  s = await startServer({ env: { VOICES_DIR: dir, WORKERS: '1', LOUDNESS_TARGET_LUFS: 'off' } });
  ({ key } = await s.newKey('hostile@example.com'));
});
after(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

const voiceId = (stem: string, speaker?: string) => `piper-${stem.toLowerCase().replace(/_/g, '-')}${speaker ? `-${speaker}` : ''}`;

async function listed(): Promise<string[]> {
  const res = await s.request('/api/voices?engine=piper');
  assert.equal(res.status, 200);
  const piper = ((await res.json()) as { voices: { id: string }[] }).voices.map((v) => v.id);
  const kokoro = ((await (await s.request('/api/voices?engine=kokoro')).json()) as { voices: { id: string }[] }).voices.map((v) => v.id);
  return [...piper, ...kokoro];
}

async function speak(voice: string): Promise<{ status: number; body: Buffer }> {
  const res = await s.request('/v1/speak', { json: { text: 'Hello world. This is a test.', voice_id: voice, format: 'wav' }, bearer: key });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

describe('hostile voice configs (issue 44 V1)', () => {
  test('each hostile config is refused at load with a log line naming the file and the field; the good voices load', async () => {
    const ids = await listed();
    for (const id of ['piper-en-us-testset-medium', 'piper-en-us-chorus-low-ann', 'piper-en-us-babble-medium', 'kokoro-af-alpha'])
      assert.ok(ids.includes(id), `${id} is listed: ${ids.join(', ')}`);
    for (const [stem, [, field]] of [...Object.entries(HOSTILE), ...Object.entries(HOSTILE_SPEAKERS)]) {
      assert.ok(!ids.some((id) => id.startsWith(voiceId(stem))), `${stem} is not listed`);
      const line = s.logs.find((l) => l.includes('VOICES_DIR: skipped') && l.includes(`${stem}.onnx.json`));
      assert.ok(line, `a log line for ${stem}`);
      assert.ok(line.includes(field), `${stem}'s log line names ${field}: ${line.slice(0, 300)}`);
    }
    for (const id of ['kokoro-am-nan', 'kokoro-bf-huge']) assert.ok(!ids.includes(id), `${id} is not listed`);
    assert.ok(s.logs.some((l) => l.includes('VOICES_DIR: skipped') && l.includes('am_nan.npy')));
    assert.ok(s.logs.some((l) => l.includes('VOICES_DIR: skipped') && l.includes('not a Kokoro voice name')));
  });

  test('a refused voice is a JSON 404 when asked for, never a 500; the good voices speak', async () => {
    for (const stem of Object.keys(HOSTILE)) {
      const { status, body } = await speak(voiceId(stem));
      assert.equal(status, 404, `${stem}: ${body.toString('utf8', 0, 200)}`);
      assert.equal((JSON.parse(body.toString()) as { code: string }).code, 'voice_not_found');
    }
    for (const stem of Object.keys(HOSTILE_SPEAKERS)) assert.equal((await speak(voiceId(stem, 'ann'))).status, 404);
    for (const good of ['piper-en-us-testset-medium', 'piper-en-us-chorus-low-bob', 'kokoro-af-alpha']) {
      const { status, body } = await speak(good);
      assert.equal(status, 200, `${good}: ${body.toString('utf8', 0, 200)}`);
      assert.ok(body.length > 10_000, `${good}: ${body.length} bytes`);
    }
  });

  test('a model that makes far more audio than its text can speak is refused with a JSON 413; others go on', async () => {
    const { status, body } = await speak('piper-en-us-babble-medium');
    assert.equal(status, 413, body.toString('utf8', 0, 200));
    const error = JSON.parse(body.toString()) as { code: string; error: string };
    assert.equal(error.code, 'audio_too_long');
    assert.match(error.error, /phonemes/);
    assert.equal((await speak('piper-en-us-testset-medium')).status, 200);
  });
});
