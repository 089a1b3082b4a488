// Text in, encoded audio out, piece by piece: the body of one worker task. It has no knowledge of
// threads or ports (the caller supplies emit/signal), so it also runs in-process in tests.
//
// The render loop: the request's plan (script-plan.ts: sentences with their voice, rate and volume,
// explicit silences, marks) becomes pieces (the first sentence cut short so audio starts early), each
// piece is rendered by its engine, cut down to its speech (shaping.ts), given the pause its punctuation
// (or a <break>) asks for, and handed to the output stream (output-stream.ts: resampling, level,
// encoding, word timings and marks, flow control).
import { createEncoder, FORMATS, OUTPUT_RATE, type EncodeFormat } from '../audio/encoders/index.ts';
import { createResampler } from '../audio/resample.ts';
import type { Engine, EngineWord } from './engine.ts';
import { rateOf } from './engine.ts';
import { OutputStream, type RenderHooks } from './output-stream.ts';
import { isLongReading } from './long-reading.ts';
import { loadEngine } from './registry.ts';
import { planSpeech, type PlanItem, type SpeechItem } from './script-plan.ts';
import { concatSamples, marginsAt, PAUSE_SECONDS, START_SILENCE_SECONDS, trimPiece } from './shaping.ts';
import { SPEED_MAX, SPEED_MIN, type SpeechRequest } from './speech.ts';
import { cutAtClauses } from './text/clause-pieces.ts';
import { cutFirstPiece, shortestHead } from './text/first-piece.ts';
import type { Break, MappedSentence } from './text/index.ts';
import type { MappedText } from './text/mapped.ts';
import { createLevelStage, voiceGain } from './voice-loudness.ts';
import type { VoiceSpec } from './voice-spec.ts';
import { timeWords } from './word-timing.ts';

export { BLOCK_SECONDS, type RenderHooks } from './output-stream.ts';

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

/** One engine call: what to say, how, and what follows it (which sets the pause after it). */
export interface Piece {
  text: string;
  /** The text with the source span of each character, for word timings. */
  mapped: MappedText;
  break: Break;
  voice: VoiceSpec;
  /** Clamped speed (the request's times the run's prosody rate). */
  speed: number;
  /** Linear gain on top of the voice's loudness normalization (prosody volume). */
  volume: number;
}

/** What the render loop does, in order: speak a piece, insert explicit silence, or pass a mark. */
type Step = { type: 'speech'; piece: Piece } | { type: 'silence'; seconds: number } | { type: 'mark'; name: string };

interface Rendered {
  samples: Float32Array;
  rate: number;
  words: EngineWord[];
}

async function renderPiece(engine: Engine, piece: Piece, hooks: RenderHooks): Promise<Rendered> {
  const parts: Float32Array[] = [];
  const words: EngineWord[] = [];
  let rate = engine.info.sampleRate;
  const options = { speed: piece.speed, signal: hooks.signal, checkpoint: hooks.checkpoint };
  for await (const chunk of engine.synthesize(piece.text, piece.voice, options)) {
    parts.push(chunk.samples);
    rate = chunk.sampleRate;
    if (chunk.words) words.push(...chunk.words);
  }
  return { samples: concatSamples(parts), rate, words };
}

/**
 * The steps of a request, in speaking order. A piece is rendered whole before any of it goes out (espeak's
 * chunks too: they all come out of one synchronous call), so the first sentence gets a short first piece and
 * the first audio comes quickly; not when the request continues a stream (its first audio is not the
 * listener's first). A long reading's long sentences become clause pieces.
 */
function planSteps(req: SpeechRequest, plan: readonly PlanItem[]): Step[] {
  const speed = clampSpeed(req.speed);
  const speeches = plan.filter((item): item is SpeechItem => item.type === 'speech');
  const longReading = isLongReading(speeches.reduce((n, item) => n + item.mapped.text.length, 0));
  const steps: Step[] = [];
  let quickStart = req.pauseBefore === undefined;
  for (const item of plan) {
    if (item.type !== 'speech') {
      steps.push(item);
      continue;
    }
    // What follows a piece is what the next one starts with (its margins are trimmed for that join).
    const next = speeches[speeches.indexOf(item) + 1];
    const sentence: MappedSentence = { text: item.mapped.text, mapped: item.mapped, break: next?.pause ?? 'sentence' };
    const cut = quickStart ? cutFirstPiece([sentence]) : [sentence];
    quickStart = false;
    for (const s of longReading ? cut.flatMap(cutAtClauses) : cut) {
      const piece = {
        text: s.text,
        mapped: s.mapped,
        break: s.break,
        voice: item.voice,
        speed: clampSpeed(speed * item.rate),
        volume: item.volume,
      };
      steps.push({ type: 'speech', piece });
    }
  }
  return steps;
}

/** Renders a request to encoded audio, calling hooks.emit as bytes become available. */
export async function renderSpeech(req: SpeechRequest, hooks: RenderHooks): Promise<RenderResult> {
  // Engines loaded and each voice measured (once per voice, so a voice switch stays level) before the
  // encoder exists, so a failure leaves nothing to release.
  const plan = planSpeech(req);
  const engines = new Map<string, { engine: Engine; gain: number }>();
  for (const item of plan) {
    if (item.type !== 'speech' || engines.has(voiceKey(item.voice))) continue;
    const engine = await loadEngine(item.voice.engine);
    engines.set(voiceKey(item.voice), { engine, gain: await voiceGain(engine, item.voice) });
  }
  const steps = planSteps(req, plan);
  const encoder = await createEncoder(req.format, {
    buffered: req.buffered === true,
    sampleRate: req.sampleRate,
    headerless: req.headerless === true,
    bitrate: req.bitrate,
  });
  const out = new OutputStream(encoder, createLevelStage(encoder.sampleRate), hooks);
  const aborted = (): boolean => hooks.signal?.aborted === true;

  let done = 0;
  try {
    // What ended the last piece that had speech, and the margin of silence it kept at its end.
    // Text streamed in pieces asks for the pause of the sentence end before it.
    let previous: { break: Break; tail: number } | undefined = req.pauseBefore ? { break: req.pauseBefore, tail: 0 } : undefined;
    // Explicit silence (<break>) not yet written: it goes before the next piece, at that piece's rate.
    let silence = 0;
    let lastRate = 0;
    // The first piece is cut down further when others wait behind it (see shortestHead); not when the
    // request continues a stream, whose listener already has audio.
    let firstPiece = req.pauseBefore === undefined;
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i];
      if (aborted()) break;
      if (step.type === 'silence') {
        silence += step.seconds;
        continue;
      }
      if (step.type === 'mark') {
        out.addMarks([{ name: step.name, time: round3(out.inputSeconds + silence) }]);
        continue;
      }
      let { piece } = step;
      const { engine, gain } = engines.get(voiceKey(piece.voice))!;
      const turn = await hooks.turn?.();
      if (aborted()) break;
      if (firstPiece && (turn?.newcomersWaiting ?? 0) >= CROWDED) {
        const [head, ...rest] = shortestHead(piece);
        piece = { ...piece, ...head };
        steps.splice(i + 1, 0, ...rest.map((s): Step => ({ type: 'speech', piece: { ...step.piece, ...s } })));
      }
      firstPiece = false;
      const r = await renderPiece(engine, piece, hooks);
      if (aborted()) break;
      done++;
      const trimmed = trimPiece(r.samples, r.rate, marginsAt(previous?.break ?? 'start'), marginsAt(piece.break));
      if (trimmed.samples.length === 0) continue;
      // Pauses follow the speaking rate, within reason: a 4x voice still needs to breathe. The margins
      // both pieces kept are part of the pause; an explicit break's silence is added whole (a piece's
      // break is the next one's pause: 'none' across a <break>).
      const gap =
        (previous === undefined
          ? START_SILENCE_SECONDS
          : Math.max(0, PAUSE_SECONDS[previous.break] * pauseScale(piece) - previous.tail - trimmed.leadSeconds)) + silence;
      silence = 0;
      const pause = Math.max(0, Math.round(gap * r.rate));
      const start = out.inputSeconds + pause / r.rate;
      const placement = { at: start, trimmed: trimmed.cut / r.rate, duration: trimmed.samples.length / r.rate };
      out.addWords(timeWords(r.words, piece.mapped, req.text, placement));
      await writeSilence(out, pause, r.rate, hooks.signal);
      if (aborted()) break;
      await out.write(withGain(trimmed.samples, gain * piece.volume), r.rate);
      lastRate = r.rate;
      previous = { break: piece.break, tail: trimmed.tailSeconds };
    }
    if (aborted()) return { seconds: out.seconds, sentences: done, cancelled: true };
    // A trailing <break> is silence too.
    if (silence > 0) {
      const rate = lastRate || encoder.sampleRate;
      await writeSilence(out, Math.round(silence * rate), rate, hooks.signal);
      if (aborted()) return { seconds: out.seconds, sentences: done, cancelled: true };
    }
    await out.end();
    return { seconds: out.seconds, sentences: done, cancelled: aborted() };
  } finally {
    out.dispose();
  }
}

/**
 * Requests waiting for their first audio behind a request's first piece from which that piece is cut down to a
 * word: 64 streams at once on two threads have 31 waiting behind the first, and the last one's first audio
 * waits for all their first pieces. The cut costs the thread one more engine run (~8 ms of flite for a short
 * sentence) and spares each one waiting about as much, so it pays from two on; it happens in bursts only, as
 * newcomers go first and seldom find others waiting (a closed loop of 16 clients on one thread: never).
 */
const CROWDED = 2;

const voiceKey = (voice: VoiceSpec): string => JSON.stringify(voice);
const round3 = (x: number): number => Math.round(x * 1000) / 1000;

function pauseScale(piece: Piece): number {
  return 1 / Math.min(3, Math.max(0.5, rateOf(piece.voice, piece.speed)));
}

/** The samples times the voice's gain. */
function withGain(x: Float32Array, gain: number): Float32Array {
  const y = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) y[i] = x[i] * gain;
  return y;
}

/**
 * Silence is made a second at a time: a pause or a run of <break>s (minutes, at most) never exists whole in
 * memory, and each second goes out (and counts toward the request's audio) before the next one is made, at the
 * pace flow control allows.
 */
const SILENCE_CHUNK_SECONDS = 1;

async function writeSilence(out: OutputStream, samples: number, rate: number, signal: AbortSignal | undefined): Promise<void> {
  const chunk = Math.max(1, Math.round(rate * SILENCE_CHUNK_SECONDS));
  for (let left = samples; left > 0 && signal?.aborted !== true; left -= chunk)
    await out.write(new Float32Array(Math.min(chunk, left)), rate);
}

/**
 * Speaks two sentences in `voice` through the whole pipeline and drops the audio: the voice's loudness is
 * measured (cached for the thread) and the shaping, level and word-timing code has run once. Measured with
 * flite slt: the first request's first audio took ~700 ms without this, ~100 ms with it (later ones ~60 ms).
 */
export async function warmVoice(voice: VoiceSpec): Promise<void> {
  const text = 'Good morning, and welcome back. Here is the news at nine: the river is high, so the old bridge stays closed today.';
  await renderSpeech({ text, voice, speed: 1, format: 'mp3' }, { emit: async () => undefined });
}

/**
 * Loads the codecs (and the resampler) this thread can need (each brings its own wasm, some take hundreds
 * of milliseconds the first time), so no request pays for it.
 */
export async function warmUpPipeline(formats: readonly EncodeFormat[] = Object.keys(FORMATS) as EncodeFormat[]): Promise<void> {
  for (const format of formats) {
    const encoder = await createEncoder(format);
    encoder.write(new Float32Array(encoder.sampleRate / 10));
    encoder.end();
  }
  const r = await createResampler(22050, OUTPUT_RATE);
  r.process(new Float32Array(2205));
  r.flush();
}
