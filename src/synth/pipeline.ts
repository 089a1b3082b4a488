// Text in, encoded audio out, piece by piece: the body of one worker task. It has no knowledge of
// threads or ports (the caller supplies emit/signal), so it also runs in-process in tests.
//
// The render loop: the request's plan (script-plan.ts: sentences with their voice, rate and volume,
// explicit silences, marks) becomes pieces (a sentence each; clauses under pressure, see cutsNow), each
// piece is spoken by speak-piece.ts (rendered, cut down to its speech while it renders, given the pause its
// punctuation or a <break> asks for) into the output stream (output-stream.ts: resampling, level,
// encoding, word timings and marks, flow control).
import { createEncoder, FORMATS, OUTPUT_RATE, type EncodeFormat } from '../audio/encoders/index.ts';
import { createResampler } from '../audio/resample.ts';
import type { Engine } from './engine.ts';
import { OutputStream, type RenderHooks } from './output-stream.ts';
import type { Turn } from './piece-turns.ts';
import { isLongReading } from './long-reading.ts';
import { loadEngine } from './registry.ts';
import { planSpeech, type PlanItem, type SpeechItem } from './script-plan.ts';
import { SPEED_MAX, SPEED_MIN, type SpeechRequest } from './speech.ts';
import { cutAtClauses } from './text/clause-pieces.ts';
import type { MappedSentence } from './text/index.ts';
import { createLevelStage, voiceGain } from './voice-loudness.ts';
import { voiceNoise, type VoiceNoise } from './voice-noise.ts';
import type { VoiceSpec } from './voice-spec.ts';
import { speakPiece, type Piece, type PieceEnd } from './speak-piece.ts';

export { BLOCK_SECONDS, type RenderHooks } from './output-stream.ts';
export type { Piece } from './speak-piece.ts';

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

/** What the render loop does, in order: speak a piece, insert explicit silence, or pass a mark. */
type Step = { type: 'speech'; piece: Piece } | { type: 'silence'; seconds: number } | { type: 'mark'; name: string };

/**
 * The steps of a request, in speaking order: each sentence a piece, whole (its first audio leaves while the
 * engine renders it, see speak-piece.ts). Sentences are cut into clauses later, piece by piece, when others on
 * the thread need a turn soon (see cutsNow).
 */
function planSteps(req: SpeechRequest, plan: readonly PlanItem[]): Step[] {
  const speed = clampSpeed(req.speed);
  const speeches = plan.filter((item): item is SpeechItem => item.type === 'speech');
  const steps: Step[] = [];
  for (const item of plan) {
    if (item.type !== 'speech') {
      steps.push(item);
      continue;
    }
    // What follows a piece is what the next one starts with (its margins are trimmed for that join).
    const next = speeches[speeches.indexOf(item) + 1];
    const sentence: MappedSentence = { text: item.mapped.text, mapped: item.mapped, break: next?.pause ?? 'sentence' };
    const piece = {
      text: sentence.text,
      mapped: sentence.mapped,
      break: sentence.break,
      voice: item.voice,
      speed: clampSpeed(speed * item.rate),
      volume: item.volume,
    };
    steps.push({ type: 'speech', piece });
  }
  return steps;
}

/** Renders a request to encoded audio, calling hooks.emit as bytes become available. */
export async function renderSpeech(req: SpeechRequest, hooks: RenderHooks): Promise<RenderResult> {
  // Engines loaded and each voice measured (once per voice, so a voice switch stays level) before the
  // encoder exists, so a failure leaves nothing to release.
  const plan = planSpeech(req);
  const engines = new Map<string, { engine: Engine; gain: number; noise: VoiceNoise }>();
  for (const item of plan) {
    if (item.type !== 'speech' || engines.has(voiceKey(item.voice))) continue;
    const engine = await loadEngine(item.voice.engine);
    engines.set(voiceKey(item.voice), { engine, gain: await voiceGain(engine, item.voice), noise: await voiceNoise(engine, item.voice) });
  }
  const steps = planSteps(req, plan);
  const longReading = isLongReading(plan.reduce((n, item) => n + (item.type === 'speech' ? item.mapped.text.length : 0), 0));
  const encoder = await createEncoder(req.format, {
    buffered: req.buffered === true && wholeWithoutWait(steps),
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
    let previous: PieceEnd | undefined = req.pauseBefore ? { break: req.pauseBefore, tail: 0 } : undefined;
    // Explicit silence (<break>) not yet written: it goes before the next piece with speech.
    let silence = 0;
    let lastRate = 0;
    const to = { out, hooks, source: req.text };
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
      const voice = engines.get(voiceKey(piece.voice))!;
      const { engine } = voice;
      const turn = await hooks.turn?.();
      if (aborted()) break;
      if (turn && cutsNow(turn, longReading, out.seconds > 0)) {
        const [head, ...rest] = cutAtClauses(piece);
        piece = { ...piece, ...head };
        steps.splice(i + 1, 0, ...rest.map((s): Step => ({ type: 'speech', piece: { ...step.piece, ...s } })));
      }
      if (silence > 0) {
        const rate = lastRate || engine.info.sampleRate;
        await writeSilence(out, Math.round(silence * rate), rate, hooks.signal);
        silence = 0;
        if (aborted()) break;
      }
      const spoken = await speakPiece(to, engine, piece, voice, previous);
      if (aborted()) break;
      done++;
      if (!spoken) continue;
      lastRate = spoken.rate;
      previous = spoken.end;
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
 * The most characters of a one-sentence answer that a download holds back to send as one file with its exact
 * lengths (WAV's RIFF and data sizes, FLAC's sample count): about ten seconds of speech, which an engine renders as
 * one piece, so its first byte leaves about when a stream's would. Anything longer streams from its first audio with
 * the open-ended header: a WAV held whole had its first byte wait for the whole render (2 900 characters: 6.5-9.5 s
 * on a loaded machine, against 0.09 s for MP3). A cached answer is replayed with its exact sizes either way.
 */
const WHOLE_FILE_MAX_CHARS = 200;

/** Whether a download's file can be held back whole at no cost to its first byte (WHOLE_FILE_MAX_CHARS). */
function wholeWithoutWait(steps: readonly Step[]): boolean {
  const pieces = steps.filter((step): step is Extract<Step, { type: 'speech' }> => step.type === 'speech');
  return pieces.length <= 1 && pieces.every((step) => step.piece.text.length <= WHOLE_FILE_MAX_CHARS);
}

/**
 * cutsNow's bounds. A listener is running short when it has less audio left to play than CLAUSE_SLACK_SECONDS
 * (a newcomer has none): a whole 25-word sentence is ~70 ms of flite on an idle core and two or three times that
 * on a busy one, and that listener would wait for all of it. Short requests that arrived on the thread beside
 * long readings within SHORT_ARRIVALS_SECONDS (Turn.sinceShortArrival) make the next one likely to arrive while
 * a piece renders and to wait for all of it. Otherwise a sentence renders whole: the cuts cost ~10 % more engine
 * time and the whole sentence's prosody.
 */
const CLAUSE_SLACK_SECONDS = 1;
const SHORT_ARRIVALS_SECONDS = 10;

/**
 * Whether the next sentence is cut into clause pieces (text/clause-pieces.ts). A long reading cuts while a
 * listener on its thread runs short or short requests come (above). Any other request cuts only once its own
 * audio plays, and only for a listener running short: a stream's later sentences, so that many streams that
 * start at once each get a clause of their next sentence before a short first one runs out. 64 streams with a four-word first sentence: 22-48 %
 * played without a stall over 150 ms (worst stalls 1.4-1.8 s) with whole sentences, 59-86 % (0.3-0.8 s) with
 * clauses, at an aggregate real-time factor of ~0.6 on two cores. A request's first sentence stays whole: its
 * first audio leaves while it renders, and a one-sentence request keeps its prosody.
 */
function cutsNow(turn: Turn, longReading: boolean, playing: boolean): boolean {
  const listenerShort = turn.othersSlack < CLAUSE_SLACK_SECONDS;
  if (longReading) return listenerShort || turn.sinceShortArrival < SHORT_ARRIVALS_SECONDS;
  return playing && listenerShort;
}

const voiceKey = (voice: VoiceSpec): string => JSON.stringify(voice);
const round3 = (x: number): number => Math.round(x * 1000) / 1000;

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
