import type { Engine, EngineChunk, EngineWord, SynthesisOptions } from '../../engine.ts';
import { engineRate, UnknownVoiceError } from '../../engine.ts';
import type { VoiceSpec } from '../../voice-spec.ts';
import { findFliteVoice, fliteInfo } from './info.ts';
import { FliteProgram, OUT_DIR } from './program.ts';
import { alignWords, parseSegments, splitAtPauses } from './segments.ts';
import { readPcm16Wav } from './wav.ts';

const OUT_FILE = 'speech.wav';

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

/** The flite command line for one sentence. */
export function fliteArgs(text: string, voice: VoiceSpec, speed: number): string[] {
  const entry = findFliteVoice(voice.base);
  if (!entry) throw new UnknownVoiceError('flite', voice.base);
  const rate = engineRate(fliteInfo, voice, speed);
  const args = ['flite', '-voice', entry.base, '--setf', `duration_stretch=${(entry.defaultStretch / rate).toFixed(4)}`];
  const pitch = voice.controls?.pitchHz;
  if (pitch !== undefined && Number.isFinite(pitch)) {
    args.push('--setf', `int_f0_target_mean=${Math.round(Math.min(400, Math.max(40, pitch)))}`);
  }
  // -psdur: flite prints each segment with its end time, from which the words are timed.
  args.push('-psdur', '-t', toFliteText(text), '-o', `${OUT_DIR}/${OUT_FILE}`);
  return args;
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
  constructor(private readonly program: FliteProgram) {}

  /** One run of the program, to its exit (synchronous: see program.ts). */
  run(args: string[]): { samples: Float32Array; sampleRate: number; printed: string[] } {
    const { printed, output } = this.program.run(args);
    const wav = output(OUT_FILE);
    if (!wav) throw new Error('flite wrote no audio');
    return { ...readPcm16Wav(wav), printed };
  }

  /** Each token's phones as flite says the word alone (cached); one flite run for all the new ones. */
  async phonesOf(tokens: readonly Token[], voice: VoiceSpec): Promise<string[][] | undefined> {
    const lookup = findFliteVoice(voice.base)?.lexiconVoice ?? voice.base;
    const key = (form: string): string => `${lookup}\u0000${form}`;
    const missing = [...new Set(tokens.filter((t) => !pronunciations.has(key(t.form))).map((t) => t.form))];
    if (missing.length > 0) {
      // Each word its own utterance: flite puts a pause between them, which is where one word's phones end.
      // `-o none`: only the printed phones are wanted.
      const { printed } = this.program.run(['flite', '-voice', lookup, '-ps', '-t', missing.map((w) => `${w}.`).join(' '), '-o', 'none']);
      const groups = splitAtPauses(printed);
      // A form flite reads as two phrases would shift every later word: then there is nothing reliable to cache.
      if (groups.length !== missing.length) return undefined;
      missing.forEach((w, i) => {
        if (pronunciations.size >= PRONUNCIATION_CACHE_SIZE) pronunciations.delete(pronunciations.keys().next().value as string);
        pronunciations.set(key(w), groups[i]);
      });
    }
    return tokens.map((t) => pronunciations.get(key(t.form)) ?? []);
  }

  /** Word start and end times from flite's segment timing. */
  async wordTimes(text: string, voice: VoiceSpec, printed: readonly string[]): Promise<EngineWord[]> {
    const tokens = tokensOf(text);
    const segments = parseSegments(printed);
    if (tokens.length === 0 || segments.length === 0) return [];
    const phones = await this.phonesOf(tokens, voice);
    if (!phones) return [];
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

  async *synthesize(text: string, voice: VoiceSpec, options: SynthesisOptions): AsyncGenerator<EngineChunk> {
    const args = fliteArgs(text, voice, options.speed);
    if (options.signal?.aborted) return;
    const { samples, sampleRate, printed } = this.run(args);
    options.checkpoint?.();
    if (options.signal?.aborted) return;
    const words = await this.wordTimes(text, voice, printed);
    yield { samples, sampleRate, ...(words.length > 0 ? { words } : {}) };
  }

  async warmUp(): Promise<void> {
    for (const base of ['slt', 'kal']) {
      this.run(fliteArgs('Warming up the speech engine.', { engine: 'flite', base }, 1));
    }
  }
}

export async function createEngine(): Promise<Engine> {
  return new FliteEngine(FliteProgram.load());
}
