import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ESPEAK_VARIANT_DIR,
  loadEspeakModule,
  readEspeakData,
  readEspeakDataAsync,
  useEspeakData,
} from '../../src/synth/engines/espeak/module.ts';

const VARIANT = `${ESPEAK_VARIANT_DIR}/f1`;

test('espeak instances read their files from one shared copy of the data, not copies of their own', async () => {
  const data = readEspeakData();
  assert.ok(data instanceof SharedArrayBuffer);
  useEspeakData(data);
  const a = await loadEspeakModule();
  const b = await loadEspeakModule();
  const text = a.FS.readFile(VARIANT, { encoding: 'utf8' });
  assert.match(text, /^name /m);

  // Where the variant file's bytes sit in the shared data: a change there shows in both instances' files.
  const bytes = Buffer.from(data);
  const at = bytes.indexOf(Buffer.from(text));
  assert.ok(at >= 0, 'the file lies in the shared data');
  const before = bytes[at];
  bytes[at] = 'N'.charCodeAt(0);
  try {
    assert.equal(a.FS.readFile(VARIANT, { encoding: 'utf8' })[0], 'N');
    assert.equal(b.FS.readFile(VARIANT, { encoding: 'utf8' })[0], 'N');
  } finally {
    bytes[at] = before;
  }
  // The instances still speak from it.
  const w = new a.eSpeakNGWorker();
  assert.equal(w.set_voice('en-us'), 0);
  let samples = 0;
  w.synthesize('Shared data.', (chunk) => {
    samples += chunk?.length ?? 0;
    return false;
  });
  assert.ok(samples > 10_000, `spoke ${samples} samples`);
});

test('the data read without blocking is the same data', async () => {
  const [a, b] = [Buffer.from(readEspeakData()), Buffer.from(await readEspeakDataAsync())];
  assert.ok(a.length > 1_000_000);
  assert.ok(a.equals(b));
});
