// The flite WASI program, shared by the engine and the phonemizer of this thread. A WASI program runs once per
// instance, and a fresh instance used to cost ~50 ms (measured: the 17 MB of voice data copied into newly
// mapped memory, page fault by page fault), before every sentence. The program is therefore compiled with its
// memory imported (src/wasm/imported-memory.ts), and every run gets a new instance over the same memory: a run
// starts from a fresh instance's state, except that memory an earlier run grew (up to MAX_KEPT_GROWTH times the
// initial size) is kept, zeroed, which the program sees as free heap. Only what the instantiation does not
// write again is zeroed first: the voice data's segments cover ~99 % of the initial 16 MB, and clearing them
// as well cost ~0.6 ms of every run (~10 ms for a one-word piece, measured), the cache it flushed included.
import { ConsoleStdout, File, OpenFile, PreopenDirectory, WASI } from '@bjorn3/browser_wasi_shim';
import { WebAssemblyApi, type WasmMemory } from '../../../wasm/web-assembly.ts';
import { zeroOutside } from '../../../wasm/data-segments.ts';
import { compileFlite, type CompiledFlite } from './compiled.ts';

/** The folder the program may write to (its `-o` file goes here). */
export const OUT_DIR = '/out';
/** A run's memory grown past this many times its initial size is replaced, so one long run is not kept. */
const MAX_KEPT_GROWTH = 2;

export interface FliteRun {
  /** Lines the program printed (`-ps`/`-psdur` segments). */
  printed: string[];
  /** The file the program wrote under OUT_DIR, if any. */
  output(name: string): Uint8Array | undefined;
}

export class FliteProgram {
  private memory: WasmMemory;

  constructor(private readonly compiled: CompiledFlite) {
    this.memory = this.newMemory();
  }

  private newMemory(): WasmMemory {
    const { initialPages: initial, maximumPages: maximum } = this.compiled;
    return new WebAssemblyApi.Memory({ initial, ...(maximum === undefined ? {} : { maximum }) });
  }

  /** Runs `flite` with these arguments (args[0] is the program name), synchronously, to its exit. */
  run(args: string[]): FliteRun {
    const printed: string[] = [];
    const errors: string[] = [];
    const dir = new PreopenDirectory(OUT_DIR, new Map());
    const fds = [
      new OpenFile(new File([])),
      ConsoleStdout.lineBuffered((line) => printed.push(line)),
      ConsoleStdout.lineBuffered((line) => errors.push(line)),
      dir,
    ];
    // Without debug:false the shim logs every file operation to the console.
    const wasi = new WASI(args, [], fds, { debug: false });
    if (this.memory.buffer.byteLength > MAX_KEPT_GROWTH * this.compiled.initialPages * 65_536) this.memory = this.newMemory();
    else zeroOutside(new Uint8Array(this.memory.buffer), this.compiled.dataRanges ?? []);
    // Instantiated synchronously: nothing else may run on this memory between the zeroing and the exit.
    const instance = new WebAssemblyApi.Instance(this.compiled.module, {
      env: { memory: this.memory },
      wasi_snapshot_preview1: wasi.wasiImport,
    });
    const code = wasi.start(instance as unknown as Parameters<WASI['start']>[0]);
    if (code !== 0) throw new Error(`flite exited with ${code}: ${errors.join(' ')}`);
    return {
      printed,
      output: (name) => {
        const file = dir.dir.contents.get(name);
        return file instanceof File ? file.data : undefined;
      },
    };
  }

  private static compiled: CompiledFlite | undefined;
  private static program: FliteProgram | undefined;

  /** The compiled program this thread's runs use (a worker gets the main thread's), instead of its own. */
  static use(compiled: CompiledFlite): void {
    FliteProgram.compiled = compiled;
  }

  /** This thread's program (compiled on first use unless one was handed over). */
  static load(): FliteProgram {
    FliteProgram.program ??= new FliteProgram((FliteProgram.compiled ??= compileFlite()));
    return FliteProgram.program;
  }
}
