// A sentence's first audio leaves while its engine is still rendering it: an engine that renders inside one
// synchronous call hands each chunk to the pipeline (SynthesisOptions.stream), which encodes and sends it from
// there. The order of events is checked, not the time; and sending early changes no sample.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Engine } from '../../src/synth/engine.ts';
import { HOLD_SECONDS } from '../../src/synth/output-stream.ts';
import { renderSpeech } from '../../src/synth/pipeline.ts';
import { loadEngine } from '../../src/synth/registry.ts';
import type { EngineId, VoiceSpec } from '../../src/synth/voice-spec.ts';
import type { WordTiming } from '../../src/synth/speech.ts';

const SENTENCE = 'The old lighthouse keeper climbed the narrow stairs every evening to light the great lamp above the harbour.';

const STREAMING: { engine: EngineId; base: string }[] = [
  { engine: 'espeak', base: 'en-us' },
  { engine: 'flite', base: 'slt' },
  { engine: 'flite', base: 'kal' },
];

interface Heard {
  /** 'sent' for every block the host sent, 'render-returned' when the engine's render call had returned. */
  events: string[];
  /** Seconds of audio of each block sent. */
  seconds: number[];
  bytes: Uint8Array;
  words: WordTiming[];
}

/**
 * Renders `text` through the pipeline; `live` gives it a host that sends at once (as a worker does), and
 * `ahead` the seconds that host's listener has ahead of its playback.
 */
async function hear(engine: Engine, voice: VoiceSpec, text: string, live: boolean, ahead?: number): Promise<Heard> {
  const events: string[] = [];
  const seconds: number[] = [];
  const parts: Uint8Array[] = [];
  const words: WordTiming[] = [];
  const take = (bytes: Uint8Array, s: number, w: WordTiming[] | undefined): void => {
    events.push('sent');
    seconds.push(s);
    parts.push(bytes.slice());
    if (w) words.push(...w);
  };
  // The engine's render call has returned by the time its iteration yields a chunk or ends (an engine that
  // renders in one call yields nothing before it returns).
  const original = engine.synthesize;
  engine.synthesize = async function* (...args: Parameters<Engine['synthesize']>) {
    let returned = false;
    const mark = (): void => {
      if (!returned) events.push('render-returned');
      returned = true;
    };
    for await (const chunk of original.apply(engine, args)) {
      mark();
      yield chunk;
    }
    mark();
  };
  try {
    await renderSpeech(
      { text, voice, speed: 1, format: 'pcm' },
      {
        emit: async (bytes, s, w) => take(bytes, s, w),
        ...(live
          ? {
              now: {
                ready: () => true,
                emit: (bytes: Uint8Array, s: number, w?: WordTiming[]) => take(bytes, s, w),
                ...(ahead === undefined ? {} : { ahead: () => ahead }),
              },
            }
          : {}),
      },
    );
  } finally {
    engine.synthesize = original;
  }
  const total = parts.reduce((n, p) => n + p.length, 0);
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return { events, seconds, bytes, words };
}

describe('a sentence streams while its engine renders it', () => {
  for (const voice of STREAMING) {
    test(`${voice.engine}/${voice.base}: the first block is sent before the engine has finished the sentence`, async () => {
      const engine = await loadEngine(voice.engine);
      await hear(engine, voice, 'Warm up.', true);
      const live = await hear(engine, voice, SENTENCE, true);
      const firstSent = live.events.indexOf('sent');
      const returned = live.events.indexOf('render-returned');
      assert.ok(returned > 0, `the engine returned: ${live.events.join(' ')}`);
      assert.ok(firstSent >= 0 && firstSent < returned, `first block before the render returned: ${live.events.join(' ')}`);
      // Several blocks left during the render, not one at its very end.
      assert.ok(returned >= 3, `blocks sent during the render: ${returned}`);

      // Sending early changes nothing: the same samples and word timings as a host that only takes what is yielded.
      const plain = await hear(engine, voice, SENTENCE, false);
      assert.deepEqual(live.bytes, plain.bytes);
      assert.deepEqual(live.words, plain.words);
      // Each word once, in order.
      assert.deepEqual(
        live.words.map((w) => w.word),
        SENTENCE.replace(/\./g, '').split(' '),
      );
    });
  }
});

test('while the listener has audio ahead, chunks sent from inside the render are held until they make a block', async () => {
  const engine = await loadEngine('flite');
  const voice = { engine: 'flite' as const, base: 'slt' };
  await hear(engine, voice, 'Warm up.', true);
  const eager = await hear(engine, voice, SENTENCE, true, 0);
  const held = await hear(engine, voice, SENTENCE, true, 5);
  // Without audio ahead, every few-millisecond chunk of the engine goes out on its own.
  assert.ok(eager.seconds.length > 3 * held.seconds.length, `${eager.seconds.length} blocks eager, ${held.seconds.length} held`);
  // Held: the first audio still goes at once (one engine chunk), the messages in between carry HOLD_SECONDS each.
  assert.ok(held.seconds[0] < HOLD_SECONDS / 2, `first message ${held.seconds[0]} s`);
  // (After the render: what was held, the piece's end and the flushes of the resampler and the limiter.)
  const duringRender = held.seconds.slice(0, held.events.indexOf('render-returned'));
  const inner = duringRender.slice(1);
  assert.ok(inner.length >= 2, `${inner.length} messages during the render after the first`);
  for (const s of inner) assert.ok(s >= HOLD_SECONDS - 0.05, `a message of ${s} s: ${held.seconds.join(' ')}`);
  assert.ok(held.events.indexOf('sent') < held.events.indexOf('render-returned'), 'still sent during the render');
  // Holding changes no sample and no word timing.
  assert.deepEqual(held.bytes, eager.bytes);
  assert.deepEqual(held.words, eager.words);
});
