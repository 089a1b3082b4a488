// The synthesizer through its worker pool: one worker taking one request at a time, so a request
// that is not cleaned up would block the next one.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { contentTypeOf, createSynthesizer, type Synthesizer } from '../../src/synth/synthesizer.ts';
import type { SpeechRequest } from '../../src/synth/speech.ts';
import { concatBytes, decodeF32, decodeWav, rms } from './helpers.ts';

const LONG = Array.from({ length: 12 }, (_, i) => `This is sentence number ${i + 1}, spoken slowly and clearly.`).join(' ');

async function all(s: Synthesizer, req: SpeechRequest): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const c of s.speak(req)) parts.push(c.bytes);
  return concatBytes(parts);
}

/** Files reachable from `file` through static, non-type imports (dynamic import() is not followed). */
function staticImports(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const src = readFileSync(file, 'utf8');
  for (const m of src.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gm)) {
    const spec = m[1];
    if (spec.startsWith('.')) staticImports(resolve(dirname(file), spec), seen);
    else seen.add(spec);
  }
  return seen;
}

test('the main thread side never imports an engine module', () => {
  const reached = [...staticImports(resolve('src/synth/synthesizer.ts'))];
  assert.ok(reached.some((f) => f.endsWith('registry.ts')));
  const engines = reached.filter((f) => /engines\/[^/]+\/engine\.ts$|espeak-ng-emscripten|engines\/flite\/library\.ts/.test(f));
  assert.deepEqual(engines, []);
});

/** The stats of a warm one-thread pool with nothing to do. */
const IDLE_ONE_THREAD = { queued: 0, running: 0, workers: 1, readyWorkers: 1, longReadings: [], longPauses: 0, lowPriorityThreads: 0 };

describe('synthesizer', () => {
  let s: Synthesizer;
  before(async () => {
    s = createSynthesizer({ workers: 1, tasksPerWorker: 1 });
    await s.ready();
  });
  after(() => s.close());

  test('lists engines without loading them here', () => {
    assert.deepEqual(s.engines.map((e) => e.id).sort(), ['espeak', 'flite', 'kokoro', 'piper']);
    assert.deepEqual(s.stats(), IDLE_ONE_THREAD);
    assert.equal(contentTypeOf('mp3'), 'audio/mpeg');
    assert.equal(contentTypeOf('wav'), 'audio/wav');
  });

  test('every format streams bytes', async () => {
    for (const format of ['mp3', 'wav', 'opus', 'flac', 'pcm', 'mulaw', 'f32'] as const) {
      const bytes = await all(s, { text: 'Hello from the pool.', voice: { engine: 'flite', base: 'slt' }, speed: 1, format });
      assert.ok(bytes.length > 1000, `${format}: ${bytes.length} bytes`);
    }
    const wav = decodeWav(
      await all(s, { text: 'Hello from the pool.', voice: { engine: 'espeak', base: 'en-us' }, speed: 1, format: 'wav' }),
    );
    assert.equal(wav.rate, 24000);
    assert.ok(rms(wav.samples) > 0.02);
  });

  test('f32 chunks are whole samples and carry word timings', async () => {
    let words = 0;
    const parts: Uint8Array[] = [];
    for await (const c of s.speak({
      text: 'Words have timings. Twice.',
      voice: { engine: 'espeak', base: 'en-gb' },
      speed: 1.5,
      format: 'f32',
    })) {
      assert.equal(c.bytes.length % 4, 0);
      parts.push(c.bytes);
      words += c.words?.length ?? 0;
    }
    assert.equal(words, 4);
    assert.ok(rms(decodeF32(concatBytes(parts))) > 0.02);
  });

  test('breaking the iteration cancels in the worker and frees it', async () => {
    let chunks = 0;
    for await (const _ of s.speak({ text: LONG, voice: { engine: 'espeak', base: 'en-us' }, speed: 1, format: 'mp3' })) {
      if (++chunks === 2) break;
    }
    assert.deepEqual(s.stats(), IDLE_ONE_THREAD);
    const next = await all(s, { text: 'The next request completes.', voice: { engine: 'flite', base: 'slt' }, speed: 1, format: 'wav' });
    assert.ok(decodeWav(next).samples.length > 24000 * 0.5);
  });

  test('an aborted signal rejects the iteration and frees the worker', async () => {
    const ac = new AbortController();
    let chunks = 0;
    await assert.rejects(
      (async () => {
        for await (const _ of s.speak({ text: LONG, voice: { engine: 'flite', base: 'rms' }, speed: 1, format: 'pcm' }, ac.signal)) {
          if (++chunks === 1) ac.abort();
        }
      })(),
      { name: 'AbortError' },
    );
    assert.equal(chunks, 1);
    assert.equal(s.stats().running, 0);
    assert.ok((await all(s, { text: 'Still here.', voice: { engine: 'espeak', base: 'de' }, speed: 1, format: 'pcm' })).length > 0);
  });

  test('requests queue behind a busy worker and all complete', async () => {
    const reqs = ['One.', 'Two.', 'Three.'].map((text) =>
      all(s, { text, voice: { engine: 'espeak', base: 'en-us' }, speed: 1, format: 'f32' }),
    );
    const outs = await Promise.all(reqs);
    for (const o of outs) assert.ok(o.length > 0);
  });

  test('errors surface from the iterator', async () => {
    await assert.rejects(all(s, { text: 'Hi.', voice: { engine: 'flite', base: 'nobody' }, speed: 1, format: 'wav' }), /unknown voice/);
    await assert.rejects(
      all(s, { text: 'Hi.', voice: { engine: 'espeak', base: 'en-us', variant: 'nope' }, speed: 1, format: 'wav' }),
      /unknown voice/,
    );
    // The worker survives errors.
    assert.ok((await all(s, { text: 'Fine.', voice: { engine: 'flite', base: 'slt' }, speed: 1, format: 'wav' })).length > 44);
  });

  test('a refused phonemize keeps its kind across the thread', async () => {
    await assert.rejects(s.phonemize({ text: 'Hi.', voice: { engine: 'flite', base: 'nobody' } }), (err: Error & { kind?: string }) => {
      assert.equal(err.kind, 'UnknownVoiceError');
      assert.match(err.message, /unknown voice/);
      return true;
    });
    await assert.rejects(s.phonemize({ text: 'word '.repeat(50), voice: { engine: 'flite', base: 'slt' }, maxChars: 20, lexicon: [] }), {
      kind: 'TextTooLongError',
    });
    assert.ok((await s.phonemize({ text: 'Fine.', voice: { engine: 'flite', base: 'slt' } })).words.length > 0, 'the thread goes on');
  });
});

test('with warm voices, ready comes before the other engines load, and a request for one of them waits for it', async () => {
  const s = createSynthesizer({ workers: 1, warmVoices: [{ engine: 'flite', base: 'slt' }] });
  try {
    await s.ready();
    // Straight after ready: espeak (not a warm voice's engine) may still be loading in the thread.
    const [espeak, flac] = await Promise.all([
      all(s, { text: 'Right after start.', voice: { engine: 'espeak', base: 'en-us' }, speed: 1, format: 'wav' }),
      all(s, { text: 'Lossless too.', voice: { engine: 'flite', base: 'slt' }, speed: 1, format: 'flac' }),
    ]);
    const audio = decodeWav(espeak);
    assert.equal(audio.rate, 24_000);
    assert.ok(audio.samples.length > 0.5 * 24_000 && rms(audio.samples) > 0.01, 'espeak spoke');
    assert.equal(String.fromCharCode(...flac.subarray(0, 4)), 'fLaC');
    assert.ok(flac.length > 2000);
  } finally {
    await s.close();
  }
});
