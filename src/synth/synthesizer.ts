// The one API the HTTP layer uses: text in, encoded audio chunks out, rendered in the worker pool.
import { randomUUID } from 'node:crypto';
import { BroadcastChannel, MessageChannel } from 'node:worker_threads';
import { FORMATS, isEncodeFormat } from '../audio/encoders/index.ts';
import type { EngineInfo } from './engine.ts';
import { installNeuralModels, neuralModelsFor, type NeuralModels } from './neural-models.ts';
import { readEspeakData } from './engines/espeak/module.ts';
import { compileFlite } from './engines/flite/compiled.ts';
import { isLongReading } from './long-reading.ts';
import { SynthPool, type PoolOptions, type PoolStats } from './pool.ts';
import type { CoreYieldShared } from './core-yield.ts';
import type { Phonemized, PhonemizeRequest } from './phonemize.ts';
import type { ControlMessage, NeuralRetain, StreamMessage } from './protocol.ts';
import { ENGINES } from './registry.ts';
import { type OutputFormat, type SpeechChunk, type SpeechRequest } from './speech.ts';

export type { OutputFormat, SpeechChunk, SpeechRequest, WordTiming } from './speech.ts';
export type { EngineInfo } from './engine.ts';

export interface Synthesizer {
  /** Metadata only: no engine module is loaded on this thread. */
  readonly engines: readonly EngineInfo[];
  /**
   * Streams the encoded audio. Breaking the iteration or aborting `signal` cancels the work in the
   * worker (an aborted signal makes the pending next() reject with the signal's reason). Failures
   * (unknown voice, engine error, a worker crash) are thrown from the iterator. Flow control is
   * internal: the worker stays at most ~2 s of audio ahead of what the consumer has taken.
   */
  speak(req: SpeechRequest, signal?: AbortSignal, options?: SpeakOptions): AsyncIterable<SpeechChunk>;
  /** The normalized text and each word's phonemes, worked out in a worker (espeak and flite run synchronously). */
  phonemize(req: PhonemizeRequest): Promise<Phonemized>;
  /** Resolves once every worker has loaded (and warmed up) its engines. */
  ready(): Promise<void>;
  /** Resolves once the first thread is warm: requests are served warm from then on (readiness). */
  serving(): Promise<void>;
  stats(): PoolStats;
  /**
   * The shared counts by which long work steps aside for short requests' first audio (core-yield.ts): other
   * threads doing long work beside the pool's (the job encoder) join them.
   */
  readonly coreYield: CoreYieldShared;
  /**
   * Makes these the neural models (VOICES_DIR changed): requests use them at once, and the workers let go of
   * the models no longer listed.
   */
  setNeuralModels(models: NeuralModels): void;
  close(): Promise<void>;
}

export interface SpeakOptions {
  /**
   * Background work (a piece of a long-form job): placed as a long reading, so requests someone is waiting
   * for go to the threads where fewer of them run.
   */
  background?: boolean;
}

/** The pool's options (threads, and what each thread is started with), and the streaming limits. */
export interface SynthesizerOptions extends PoolOptions {
  /** Audio the worker may produce ahead of the consumer; default 2 s. */
  maxUnackedSeconds?: number;
  /** A consumer that takes nothing for this long is dropped; default 120 000 ms. */
  stallTimeoutMs?: number;
}

export class SynthesisError extends Error {
  constructor(
    message: string,
    readonly kind: string,
  ) {
    super(message);
    this.name = 'SynthesisError';
  }
}

/** The Content-Type of a format's bytes. */
export function contentTypeOf(format: OutputFormat): string {
  return FORMATS[format].contentType;
}

/** The sample rate a format carries (24 000 Hz; mu-law 8 000 Hz). */
export function sampleRateOf(format: OutputFormat): number {
  return FORMATS[format].sampleRate;
}

function validate(req: SpeechRequest): void {
  if (typeof req.text !== 'string') throw new TypeError('text must be a string');
  if (!isEncodeFormat(req.format)) throw new RangeError(`unsupported format ${JSON.stringify(req.format)}`);
}

export function createSynthesizer(options: SynthesizerOptions = {}): Synthesizer {
  if (options.neural) installNeuralModels(options.neural);
  const { maxUnackedSeconds = 2, stallTimeoutMs = 120_000, ...poolOptions } = options;
  // One channel per pool: several services (tests) may share a process.
  const neuralChannel = `voxsmith-neural-${randomUUID()}`;
  const channel = new BroadcastChannel(neuralChannel);
  channel.unref();
  // Compiled and read here once and shared, not by every thread.
  const pool = new SynthPool({
    ...poolOptions,
    neuralChannel,
    flite: poolOptions.flite ?? compileFlite(),
    espeakData: poolOptions.espeakData ?? readEspeakData(),
  });
  let nextId = 1;

  async function* speak(req: SpeechRequest, signal?: AbortSignal, options: SpeakOptions = {}): AsyncGenerator<SpeechChunk> {
    validate(req);
    signal?.throwIfAborted();
    const id = nextId++;
    const { port1, port2 } = new MessageChannel();
    const inbox: StreamMessage[] = [];
    let wake: (() => void) | undefined;
    let crash: Error | undefined;
    const poke = (): void => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    port1.on('message', (m: StreamMessage) => {
      inbox.push(m);
      poke();
    });
    signal?.addEventListener('abort', poke);
    // Every field travels to the worker: script, voices, lexicon, pauseBefore, sampleRate ... all change the audio.
    const request: SpeechRequest = { ...req };
    // The text's length with any markup in it: close enough to the speech's for choosing a thread.
    const long = options.background === true || isLongReading(req.text.length);
    const neural = neuralModelsFor([req.voice, ...(req.voices ?? []).map((v) => v.spec)]);
    const task = pool.run(
      { type: 'speak', id, request, port: port2, maxUnackedSeconds, stallTimeoutMs, ...(neural ? { neural } : {}) },
      [port2],
      long,
    );
    task.catch((err: unknown) => {
      crash = err instanceof Error ? err : new Error(String(err));
      poke();
    });
    const control = (msg: ControlMessage): void => port1.postMessage(msg);
    let finished = false;
    try {
      for (;;) {
        signal?.throwIfAborted();
        const m = inbox.shift();
        if (m === undefined) {
          if (crash) throw new SynthesisError(`speech worker failed: ${crash.message}`, 'WorkerError');
          await new Promise<void>((resolve) => (wake = resolve));
          continue;
        }
        if (m.type === 'chunk') {
          control({ type: 'ack', id, seconds: m.seconds });
          if (m.bytes.length === 0 && !m.words && !m.marks) continue;
          yield { bytes: m.bytes, seconds: m.seconds, ...(m.words ? { words: m.words } : {}), ...(m.marks ? { marks: m.marks } : {}) };
        } else if (m.type === 'done') {
          finished = true;
          return;
        } else {
          finished = true;
          throw new SynthesisError(m.message, m.name);
        }
      }
    } finally {
      signal?.removeEventListener('abort', poke);
      if (!finished) control({ type: 'cancel', id });
      // Wait for the worker to let go of the request, so its slot is free when we return.
      await task.catch(() => undefined);
      port1.close();
    }
  }

  async function phonemize(req: PhonemizeRequest): Promise<Phonemized> {
    const neural = neuralModelsFor([req.voice]);
    const answer = await pool.run({ type: 'phonemize', id: nextId++, request: req, ...(neural ? { neural } : {}) });
    if (answer.type === 'refused') throw new SynthesisError(answer.message, answer.name);
    return answer.result;
  }

  return {
    engines: ENGINES,
    speak,
    phonemize,
    ready: () => pool.ready(),
    serving: () => pool.serving(),
    stats: () => pool.stats(),
    coreYield: pool.coreYield,
    setNeuralModels: (models) => {
      installNeuralModels(models);
      const keys = [...models.piper.map((m) => m.key), ...models.kokoro.map((b) => b.key)];
      channel.postMessage({ type: 'retain', keys } satisfies NeuralRetain);
    },
    close: async () => {
      channel.close();
      await pool.close();
    },
  };
}
