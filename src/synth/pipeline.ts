// Text in, encoded audio out, sentence by sentence: the body of one worker task. It has no knowledge of
// threads or ports (the caller supplies emit/signal), so it also runs in-process in tests.
import { createEncoder, FORMATS, OUTPUT_RATE, type EncodeFormat } from '../audio/encoders/index.ts';
import { createResampler, type Resampler } from '../audio/resample.ts';
import type { Engine, EngineWord } from './engine.ts';
import { rateOf, UnknownVoiceError } from './engine.ts';
import { isEnglishVoice, isKnownVoice, loadEngine } from './registry.ts';
import { concatSamples, fadeEdges, PAUSE_SECONDS, speechBounds } from './shaping.ts';
import { SPEED_MAX, SPEED_MIN, type SpeechRequest, type WordTiming } from './speech.ts';
import { prepareText, type Break } from './text/index.ts';
import { createLevelStage, voiceGain } from './voice-loudness.ts';
import type { VoiceSpec } from './voice-spec.ts';

/** Encoded output is handed over in pieces of at most this much audio (also the flow-control grain). */
export const BLOCK_SECONDS = 0.25;

export interface RenderHooks {
  signal?: AbortSignal;
  /** Lets the host process control messages while an engine runs synchronously. */
  checkpoint?: () => void;
  /**
   * Takes the next encoded bytes with the seconds of audio they complete and the words that start in
   * them; resolves when more may be produced (flow control). Bytes are empty only in a final call that
   * carries words or seconds left over from a codec that had nothing to flush.
   */
  emit(bytes: Uint8Array, seconds: number, words: WordTiming[] | undefined): Promise<void>;
}

export interface RenderResult {
  /** Seconds of audio produced. */
  seconds: number;
  sentences: number;
  cancelled: boolean;
}

export function clampSpeed(speed: number): number {
  if (!Number.isFinite(speed)) return 1;
  return Math.min(SPEED_MAX, Math.max(SPEED_MIN, speed));
}

interface Rendered {
  samples: Float32Array;
  rate: number;
  words: EngineWord[];
}

async function renderSentence(engine: Engine, text: string, voice: VoiceSpec, speed: number, hooks: RenderHooks): Promise<Rendered> {
  const parts: Float32Array[] = [];
  const words: EngineWord[] = [];
  let rate = engine.info.sampleRate;
  for await (const chunk of engine.synthesize(text, voice, { speed, signal: hooks.signal, checkpoint: hooks.checkpoint })) {
    parts.push(chunk.samples);
    rate = chunk.sampleRate;
    if (chunk.words) words.push(...chunk.words);
  }
  return { samples: concatSamples(parts), rate, words };
}

/** Word timings on the stream's timeline for a sentence whose kept speech starts at `offset` seconds. */
function timeWords(words: readonly EngineWord[], offset: number, trimmed: number, duration: number): WordTiming[] {
  const starts = words.map((w) => Math.min(duration, Math.max(0, w.time - trimmed)));
  return words.map((w, i) => ({
    word: w.text,
    start: round3(offset + starts[i]),
    end: round3(offset + (i + 1 < words.length ? Math.max(starts[i], starts[i + 1]) : duration)),
  }));
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** Renders a request to encoded audio, calling hooks.emit as bytes become available. */
export async function renderSpeech(req: SpeechRequest, hooks: RenderHooks): Promise<RenderResult> {
  const { voice } = req;
  if (!isKnownVoice(voice)) throw new UnknownVoiceError(voice.engine, voice.base);
  const speed = clampSpeed(req.speed);
  // Pauses follow the speaking rate, within reason: a 4x voice still needs to breathe.
  const pauseScale = 1 / Math.min(3, Math.max(0.5, rateOf(voice, speed)));
  const engine = await loadEngine(voice.engine);
  const sentences = prepareText(req.text, { english: isEnglishVoice(voice) });
  // Measured (once per voice) before the encoder exists, so a failure leaves nothing to release.
  const gain = await voiceGain(engine, voice);
  const encoder = await createEncoder(req.format, { buffered: req.buffered === true });
  const outRate = encoder.sampleRate;
  // Loudness: the voice's own gain toward the target and a true-peak limiter, after resampling (whose
  // overshoot it also catches).
  const level = createLevelStage(gain, outRate);
  const aborted = (): boolean => hooks.signal?.aborted === true;

  let resampler: Resampler | undefined;
  let ended = false;
  // Timeline of the audio fed to the resampler, and of the output handed out so far.
  let inSeconds = 0;
  let outSamples = 0;
  let pendingSeconds = 0;
  let words: WordTiming[] = [];

  const send = async (bytes: Uint8Array, samples: number): Promise<void> => {
    outSamples += samples;
    pendingSeconds += samples / outRate;
    if (bytes.length === 0) return;
    const now = outSamples / outRate;
    const due = words.filter((w) => w.start < now + 1e-6);
    words = words.filter((w) => w.start >= now + 1e-6);
    const seconds = pendingSeconds;
    pendingSeconds = 0;
    await hooks.emit(bytes, seconds, due.length > 0 ? due : undefined);
  };

  const sendAudio = async (x: Float32Array): Promise<void> => {
    const block = Math.round(outRate * BLOCK_SECONDS);
    for (let at = 0; at < x.length; at += block) {
      if (aborted()) return;
      const part = x.subarray(at, Math.min(x.length, at + block));
      await send(encoder.write(part), part.length);
    }
  };

  let done = 0;
  try {
    let previous: Break | undefined;
    for (const sentence of sentences) {
      if (aborted()) break;
      const r = await renderSentence(engine, sentence.text, voice, speed, hooks);
      if (aborted()) break;
      done++;
      const { start, end } = speechBounds(r.samples, r.rate);
      if (end <= start) continue;
      resampler ??= await createResampler(r.rate, outRate);
      const body = r.samples.slice(start, end);
      fadeEdges(body, r.rate);
      const pause = previous === undefined ? 0 : Math.round(PAUSE_SECONDS[previous] * pauseScale * r.rate);
      const input = new Float32Array(pause + body.length);
      input.set(body, pause);
      words.push(...timeWords(r.words, inSeconds + pause / r.rate, start / r.rate, body.length / r.rate));
      inSeconds += input.length / r.rate;
      previous = sentence.break;
      await sendAudio(level.process(resampler.process(input)));
    }
    if (aborted()) return { seconds: outSamples / outRate, sentences: done, cancelled: true };
    if (resampler) await sendAudio(level.process(resampler.flush()));
    await sendAudio(level.flush());
    ended = true;
    const last = encoder.end();
    // Whatever is still owed goes out with the last bytes (there are always some for headers/flushes).
    const rest = words;
    words = [];
    if (last.length > 0 || pendingSeconds > 0 || rest.length > 0) {
      await hooks.emit(last, pendingSeconds, rest.length > 0 ? rest : undefined);
    }
    return { seconds: outSamples / outRate, sentences: done, cancelled: aborted() };
  } finally {
    resampler?.dispose();
    if (!ended) {
      try {
        encoder.end();
      } catch {
        // Only releasing the codec's memory; its output is not wanted.
      }
    }
  }
}

/**
 * Loads every codec and resampler this thread can need (each brings its own wasm, some take
 * hundreds of milliseconds the first time), so no request pays for it.
 */
export async function warmUpPipeline(): Promise<void> {
  for (const format of Object.keys(FORMATS) as EncodeFormat[]) {
    const encoder = await createEncoder(format);
    encoder.write(new Float32Array(encoder.sampleRate / 10));
    encoder.end();
  }
  const r = await createResampler(22050, OUTPUT_RATE);
  r.process(new Float32Array(2205));
  r.flush();
}
