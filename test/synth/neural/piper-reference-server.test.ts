// Through the real server: a Piper voice (generated test model, test/helpers/onnx-models.ts, whose audio length
// is the count of the ids it got and whose amplitude is their sum) with piper-phonemize's default id map gets,
// for reference sentences, the ids Piper's own phonemizer makes (test/synth/piper-corpus/reference.jsonl). The
// sentences are ones whose phonemes the bundled espeak-ng writes otherwise than Piper's fork (see fork-ipa.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PIPER_AMPLITUDE_DIVISOR, PIPER_SAMPLES_PER_ID, piperConfig, piperModel } from '../../helpers/onnx-models.ts';
import { PIPER_DEFAULT_ID_MAP } from '../../helpers/piper-default-ids.ts';
import { startServer, type TestServer } from '../../helpers/server.ts';

const OUT_RATE = 24000;
const SENTENCES: Record<string, string[]> = {
  'en-us': ['Who left the door open?', "We've seen this movie before.", 'The engine roared to life.'],
  de: ['Herr Schmidt wohnt in München.', 'Unser Flugzeug landet pünktlich.'],
};
const VOICE_ID: Record<string, string> = { 'en-us': 'piper-en-us-reference-medium', de: 'piper-de-de-reference-medium' };

interface Reference {
  voice: string;
  text: string;
  ids: number[][];
}
const reference = readFileSync(new URL('../piper-corpus/reference.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as Reference);

let s: TestServer;
let key: string;
const dir = mkdtempSync(join(tmpdir(), 'voxsmith-piper-ref-'));

before(async () => {
  for (const [file, espeak, code] of [
    ['en_US-reference-medium', 'en-us', 'en_US'],
    ['de_DE-reference-medium', 'de', 'de_DE'],
  ]) {
    writeFileSync(join(dir, `${file}.onnx`), piperModel());
    const config = { ...piperConfig({ dataset: 'reference' }), espeak: { voice: espeak }, phoneme_id_map: PIPER_DEFAULT_ID_MAP };
    const [family, region] = code.split('_');
    writeFileSync(
      join(dir, `${file}.onnx.json`),
      JSON.stringify({ ...config, language: { code, family, region, name_native: family, name_english: family, country_english: region } }),
    );
  }
  // The model writes its input into the amplitude: the loudness stage must leave the level alone.
  s = await startServer({ env: { VOICES_DIR: dir, WORKERS: '1', LOUDNESS_TARGET_LUFS: 'off' } });
  ({ key } = await s.newKey('piper-reference@example.com'));
});
after(async () => {
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

async function pcm(text: string, voice: string): Promise<Float32Array> {
  const res = await s.request('/v1/speak', { json: { format: 'pcm', text, voice_id: voice }, bearer: key });
  assert.equal(res.status, 200, await res.clone().text());
  const bytes = new Uint8Array(await res.arrayBuffer());
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(bytes.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = view.getInt16(i * 2, true) / 32768;
  let start = 0;
  while (start < out.length && out[start] === 0) start++;
  return out.subarray(start);
}

/** Peak amplitude of the middle half (a pure sine: its RMS x sqrt 2). */
function amplitude(x: Float32Array): number {
  const mid = x.subarray(Math.floor(x.length / 4), Math.floor((3 * x.length) / 4));
  let sum = 0;
  for (const v of mid) sum += v * v;
  return Math.sqrt((2 * sum) / mid.length);
}

test('a Piper voice given reference sentences through /v1/speak gets as many ids, summing as much, as Piper’s own', async () => {
  for (const [voice, texts] of Object.entries(SENTENCES)) {
    for (const text of texts) {
      const ref = reference.find((r) => r.voice === voice && r.text === text);
      assert.ok(ref && ref.ids.length === 1, `${voice}: ${text} is one sentence of the reference`);
      const ids = ref.ids[0];
      const x = await pcm(text, VOICE_ID[voice]);
      const expectedSamples = (ids.length * PIPER_SAMPLES_PER_ID * OUT_RATE) / 22050;
      assert.ok(Math.abs(x.length - expectedSamples) < 40, `${text}: ${x.length} samples, expected ${expectedSamples}`);
      const sum = ids.reduce((a, b) => a + b, 0);
      const measured = amplitude(x) * ids.length * PIPER_AMPLITUDE_DIVISOR;
      // One phoneme written otherwise (o 27 for ɔ 54, y 37 for ʏ 105) moves the sum by 2 % or more.
      assert.ok(Math.abs(measured - sum) < 0.005 * sum, `${text}: id sum ${measured.toFixed(1)}, expected ${sum}`);
    }
  }
});
