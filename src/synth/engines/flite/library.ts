// The flite library (resident.c over Debian's flite 2.2, compiled.ts), resident in its thread: one instance,
// instantiated once and called for every sentence, its voices registered once. A sentence's audio comes out
// piece by piece through the imported `chunk` function while flite renders it (its own audio streaming), so
// the caller can send the first piece before the rest exists. Used by the engine and the phonemizer of this
// thread; every call runs synchronously to its end.
import { WebAssemblyApi, type WasmInstance } from '../../../wasm/web-assembly.ts';
import { compileFlite, type CompiledFlite } from './compiled.ts';

/**
 * The fewest samples flite gathers before it hands a piece over (it hands a little more: whole frames).
 * Small enough that the first piece of a sentence leaves within ~10 ms of rendering, large enough that a
 * sentence is a handful of pieces (0.13 s of audio at 16 kHz).
 */
const PIECE_SAMPLES = 2048;
/**
 * Memory grown past this by one huge sentence is given back: the instance is dropped after that call and a
 * new one made for the next (the usual sentence keeps it at its initial size plus a few MiB).
 */
const MAX_KEPT_BYTES = 96 * 1024 * 1024;
const FIRST = 1;
const LAST = 2;

/** A piece of a sentence's audio, as flite hands it over. */
export interface FlitePiece {
  samples: Float32Array;
  sampleRate: number;
  /** The first piece: the sentence's segments are timed by then (FliteLibrary.segments). */
  first: boolean;
  last: boolean;
}

export interface FliteCall {
  /** duration_stretch for this call (0: the voice's own). */
  stretch: number;
  /** int_f0_target_mean for this call (undefined: the voice's own). */
  f0?: number;
}

/** flite ended the call through exit(), which it does on an error it cannot go on from. */
class FliteExit extends Error {
  constructor(code: number, printed: string) {
    super(`flite exited with ${code}${printed ? `: ${printed.trim()}` : ''}`);
  }
}

interface Exports {
  memory: { buffer: ArrayBuffer };
  _initialize(): void;
  vx_init(piece: number): number;
  vx_voice(name: number): number;
  vx_alloc(size: number): number;
  vx_free(pointer: number): void;
  vx_speak(voice: number, text: number, stretch: number, f0: number): number;
  vx_segments(): number;
  vx_phones(voice: number, text: number): number;
}

const EBADF = 8;

class Instance {
  readonly exports: Exports;
  private readonly voices = new Map<string, number>();
  /** What flite printed (its error messages), the latest part. */
  printed = '';
  /** The current call's receiver of pieces; it returns true to stop the rendering. */
  onPiece: ((samples: Int16Array, rate: number, flags: number) => boolean) | undefined;

  constructor(module: object) {
    const memory = (): ArrayBuffer => this.exports.memory.buffer;
    const wasi = {
      fd_write: (fd: number, iovs: number, count: number, written: number): number => {
        const view = new DataView(memory());
        let n = 0;
        for (let i = 0; i < count; i++) {
          const at = view.getUint32(iovs + 8 * i, true);
          const len = view.getUint32(iovs + 8 * i + 4, true);
          if (fd === 1 || fd === 2) this.printed = (this.printed + Buffer.from(memory(), at, len).toString('latin1')).slice(-2000);
          n += len;
        }
        view.setUint32(written, n, true);
        return 0;
      },
      // No files: stdio only reaches fd_write.
      fd_close: (): number => EBADF,
      fd_fdstat_get: (): number => EBADF,
      fd_read: (): number => EBADF,
      fd_seek: (): number => EBADF,
      proc_exit: (code: number): never => {
        throw new FliteExit(code, this.printed);
      },
    };
    const host = {
      chunk: (pointer: number, count: number, rate: number, flags: number): number =>
        this.onPiece?.(new Int16Array(memory(), pointer, count), rate, flags) ? 1 : 0,
    };
    const instance: WasmInstance = new WebAssemblyApi.Instance(module, { wasi_snapshot_preview1: wasi, voxsmith: host });
    this.exports = instance.exports as unknown as Exports;
    this.exports._initialize();
    if (this.exports.vx_init(PIECE_SAMPLES) <= 0) throw new Error('flite: voices did not register');
  }

  get bytes(): number {
    return this.exports.memory.buffer.byteLength;
  }

  /** A NUL-terminated copy of `text` in the instance's memory (the caller frees it). */
  string(text: string): number {
    const bytes = Buffer.from(text, 'utf8');
    const at = this.exports.vx_alloc(bytes.length + 1);
    const into = new Uint8Array(this.exports.memory.buffer, at, bytes.length + 1);
    into.set(bytes);
    into[bytes.length] = 0;
    return at;
  }

  read(pointer: number): string {
    const bytes = new Uint8Array(this.exports.memory.buffer);
    let end = pointer;
    while (bytes[end] !== 0) end++;
    return Buffer.from(bytes.buffer, pointer, end - pointer).toString('utf8');
  }

  voice(name: string): number {
    let index = this.voices.get(name);
    if (index === undefined) {
      const at = this.string(name);
      index = this.exports.vx_voice(at);
      this.exports.vx_free(at);
      this.voices.set(name, index);
    }
    if (index < 0) throw new Error(`flite: no voice ${JSON.stringify(name)}`);
    return index;
  }
}

export class FliteLibrary {
  private instance: Instance | undefined;
  /** Inside a call: flite is not re-entrant, and a piece's receiver must not start another call. */
  private busy = false;

  constructor(private readonly compiled: CompiledFlite) {}

  /** The instance's memory now, in bytes (0 before the first call). */
  get memoryBytes(): number {
    return this.instance?.bytes ?? 0;
  }

  /**
   * Runs `work` on the instance. An exception that crossed the instance's frames (flite's exit, a trap, the
   * receiver's own error) left it mid-call, its stack and heap unwound by nothing: it is dropped then, and the
   * next call gets a new one.
   */
  private call<T>(work: (instance: Instance) => T): T {
    if (this.busy) throw new Error('flite: a call is already running on this thread');
    this.busy = true;
    const instance = (this.instance ??= new Instance(this.compiled.module));
    let ok = false;
    try {
      const out = work(instance);
      ok = true;
      return out;
    } finally {
      instance.onPiece = undefined;
      if (!ok || instance.bytes > MAX_KEPT_BYTES) this.instance = undefined;
      this.busy = false;
    }
  }

  /**
   * Renders `text` (ASCII, as toFliteText gives it) with `voice`, handing each piece of audio to `onPiece`
   * the moment flite has it. `onPiece` returning true stops flite (it checks after each piece). Returns the
   * number of samples rendered, and whether it was stopped.
   */
  speak(
    voice: string,
    text: string,
    settings: FliteCall,
    onPiece: (piece: FlitePiece) => boolean | void,
  ): { samples: number; stopped: boolean } {
    return this.call((instance) => {
      const index = instance.voice(voice);
      instance.onPiece = (samples, rate, flags) => {
        const floats = new Float32Array(samples.length);
        for (let i = 0; i < samples.length; i++) floats[i] = samples[i] / 32768;
        return onPiece({ samples: floats, sampleRate: rate, first: (flags & FIRST) !== 0, last: (flags & LAST) !== 0 }) === true;
      };
      const at = instance.string(text);
      const result = instance.exports.vx_speak(index, at, settings.stretch, settings.f0 ?? 0);
      instance.exports.vx_free(at);
      if (result === -1) return { samples: 0, stopped: true };
      if (result < 0)
        throw new Error(`flite could not render the text (${result})${instance.printed ? `: ${instance.printed.trim()}` : ''}`);
      return { samples: result, stopped: false };
    });
  }

  /**
   * The sentence's segments with their end times in seconds, as `flite -psdur` prints them ("pau:0.164
   * hh:0.255 ..."): only from inside speak's `onPiece`, where they are timed from the first piece on.
   */
  segments(): string {
    const instance = this.instance;
    if (!this.busy || !instance?.onPiece) throw new Error('flite: segments are known only while a sentence renders');
    return instance.read(instance.exports.vx_segments());
  }

  /** The phones of `text` as `flite -ps` prints them ("pau hh ax l ow pau"), without rendering it. */
  phones(voice: string, text: string): string {
    return this.call((instance) => {
      const index = instance.voice(voice);
      const at = instance.string(text);
      const out = instance.exports.vx_phones(index, at);
      instance.exports.vx_free(at);
      if (out === 0) throw new Error(`flite could not analyse the text${instance.printed ? `: ${instance.printed.trim()}` : ''}`);
      return instance.read(out);
    });
  }

  private static compiled: CompiledFlite | undefined;
  private static library: FliteLibrary | undefined;

  /** The compiled library this thread uses (a worker gets the main thread's), instead of its own. */
  static use(compiled: CompiledFlite): void {
    FliteLibrary.compiled = compiled;
  }

  /** This thread's library (compiled on first use unless one was handed over). */
  static load(): FliteLibrary {
    FliteLibrary.library ??= new FliteLibrary((FliteLibrary.compiled ??= compileFlite()));
    return FliteLibrary.library;
  }
}
