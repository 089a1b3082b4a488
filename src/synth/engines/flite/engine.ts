import type { Engine, EngineChunk, EngineWord, SynthesisOptions } from '../../engine.ts';
import { engineRate, UnknownVoiceError } from '../../engine.ts';
import type { VoiceSpec } from '../../voice-spec.ts';
import { findFliteVoice, fliteInfo } from './info.ts';
import { FliteLibrary, type FliteCall } from './library.ts';
import { alignWords, parseSegments, splitAtPauses, type Segment } from './segments.ts';

/** Flite's lexicon and letter-to-sound rules are ASCII; fold accents and typographic punctuation. */
export function toFliteText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[‘’‚′]/g, "'")
    .replace(/[“”„″]/g, '"')
    .replace(/[–—−]/g, ', ')
    .replace(/…/g, '...')
    .replace(/[^\x20-\x7e\n]/g, ' ');
}

/** What the library is asked for one sentence: the voice, its settings, and the text as flite reads it. */
export function fliteCall(text: string, voice: VoiceSpec, speed: number): { base: string; text: string; call: FliteCall } {
  const entry = findFliteVoice(voice.base);
  if (!entry) throw new UnknownVoiceError('flite', voice.base);
  const rate = engineRate(fliteInfo, voice, speed);
  const call: FliteCall = { stretch: Number((entry.defaultStretch / rate).toFixed(4)) };
  const pitch = voice.controls?.pitchHz;
  if (pitch !== undefined && Number.isFinite(pitch)) call.f0 = Math.round(Math.min(400, Math.max(40, pitch)));
  return { base: entry.base, text: toFliteText(text), call };
}

/** A written token and the form whose pronunciation is looked up (edge punctuation removed). */
interface Token {
  text: string;
  offset: number;
  form: string;
}

function tokensOf(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(/\S+/g)) {
    const form = toFliteText(m[0]).replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
    if (form !== '') out.push({ text: m[0], offset: m.index ?? 0, form: form.toLowerCase() });
  }
  return out;
}

// Pronunciations are the same every time for a voice (lexicon + letter-to-sound rules): looked up once.
const PRONUNCIATION_CACHE_SIZE = 50_000;
const pronunciations = new Map<string, string[]>();

class FliteEngine implements Engine {
  readonly info = fliteInfo;
  constructor(private readonly library: FliteLibrary) {}

  /** Each token's phones as flite says the word alone (cached); one analysis for all the new ones. */
  phonesOf(tokens: readonly Token[], voice: VoiceSpec): string[][] | undefined {
    const lookup = findFliteVoice(voice.base)?.lexiconVoice ?? voice.base;
    const key = (form: string): string => `${lookup}\u0000${form}`;
    const missing = [...new Set(tokens.filter((t) => !pronunciations.has(key(t.form))).map((t) => t.form))];
    if (missing.length > 0) {
      // Each word its own sentence: flite puts a pause between them, which is where one word's phones end.
      const groups = splitAtPauses([this.library.phones(lookup, missing.map((w) => `${w}.`).join(' '))]);
      // A form flite reads as two phrases would shift every later word: then there is nothing reliable to cache.
      if (groups.length !== missing.length) return undefined;
      missing.forEach((w, i) => {
        if (pronunciations.size >= PRONUNCIATION_CACHE_SIZE) pronunciations.delete(pronunciations.keys().next().value as string);
        pronunciations.set(key(w), groups[i]);
      });
    }
    return tokens.map((t) => pronunciations.get(key(t.form)) ?? []);
  }

  async *synthesize(text: string, voice: VoiceSpec, options: SynthesisOptions): AsyncGenerator<EngineChunk> {
    const said = fliteCall(text, voice, options.speed);
    if (options.signal?.aborted) return;
    const tokens = tokensOf(text);
    // Looked up before rendering (the library runs one call at a time), so the words can go with the first piece.
    const phones = tokens.length > 0 ? this.phonesOf(tokens, voice) : undefined;
    const held: EngineChunk[] = [];
    let timed = false;
    this.library.speak(said.base, said.text, said.call, (piece) => {
      if (options.signal?.aborted) return true;
      let words: EngineWord[] = [];
      // flite times the segments before it renders them (CG and diphone voices alike): the first piece
      // carries the words, or, were they not timed yet, the last.
      if (!timed && phones && (piece.first || piece.last)) {
        const segments = parseSegments([this.library.segments()]);
        if (segments.length > 0 || piece.last) {
          timed = true;
          words = wordTimes(tokens, phones, segments);
        }
      }
      if (piece.samples.length > 0 || words.length > 0) {
        const chunk: EngineChunk = { samples: piece.samples, sampleRate: piece.sampleRate, ...(words.length > 0 ? { words } : {}) };
        if (options.stream) options.stream(chunk);
        else held.push(chunk);
      }
      options.checkpoint?.();
      return options.signal?.aborted === true;
    });
    for (const chunk of held) {
      if (options.signal?.aborted) return;
      yield chunk;
    }
  }

  async warmUp(): Promise<void> {
    for (const base of ['slt', 'kal']) {
      const said = fliteCall('Warming up the speech engine.', { engine: 'flite', base }, 1);
      this.library.speak(said.base, said.text, said.call, () => {});
    }
  }
}

/** Word start and end times from flite's segment timing. */
function wordTimes(tokens: readonly Token[], phones: readonly string[][], segments: readonly Segment[]): EngineWord[] {
  if (segments.length === 0) return [];
  const spans = alignWords(segments, phones);
  const words: EngineWord[] = [];
  tokens.forEach((t, i) => {
    const span = spans[i];
    if (!span) return;
    words.push({
      text: t.text,
      offset: t.offset,
      length: t.text.length,
      time: span.first > 0 ? segments[span.first - 1].end : 0,
      end: segments[span.last].end,
    });
  });
  return words;
}

export async function createEngine(): Promise<Engine> {
  return new FliteEngine(FliteLibrary.load());
}
