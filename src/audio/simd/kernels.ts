// The SIMD kernels of kernels.c and the memory they work in: one instance per thread, shared by its users.
// Each call copies its inputs into the scratch space, runs, and copies its outputs out; a thread runs one
// call at a time, so nothing there outlives a call.
import { WebAssemblyApi, type WasmMemory } from '../../wasm/web-assembly.ts';
import { KERNELS_WASM } from './kernels-wasm.ts';

const PAGE = 65536;
/** Below this lives the kernels' stack (clang puts it at the start of the imported memory). */
const SCRATCH_BASE = 2 * PAGE;
const FLOAT = 4;
/**
 * The most samples a kernel call takes in or makes, whatever the caller's chunk size: the scratch memory, which a
 * thread keeps for good, stays small (a few hundred KiB, the resampler's table included).
 */
export const KERNEL_BLOCK = 16384;

export interface SimdKernels {
  /** A view of the scratch space as floats, at least `floats` long (the memory grows as needed). */
  scratch(floats: number): Float32Array;
  /** The address the kernels take for scratch float `i`. */
  address(i: number): number;
  polyphase(
    x: number,
    h: number,
    y: number,
    count: number,
    n: number,
    p: number,
    phases: number,
    step: number,
    frac: number,
    taps: number,
  ): void;
  /** The true-peak limiter's loop over `len` inputs (x = 0: zeros, flushing); returns how many samples it wrote to y. */
  limit(state: number, coefficients: number, x: number, y: number, len: number, gain: number): number;
  /** Float samples to int16 (pcm.ts's floatToInt16), `count` of them from float address x to int16 address y. */
  toInt16(x: number, y: number, count: number): void;
}

let loaded: SimdKernels | undefined;

export function simdKernels(): SimdKernels {
  if (loaded) return loaded;
  const memory: WasmMemory = new WebAssemblyApi.Memory({ initial: SCRATCH_BASE / PAGE + 4 });
  const module = new WebAssemblyApi.Module(Buffer.from(KERNELS_WASM, 'base64'));
  const exports = new WebAssemblyApi.Instance(module, { env: { memory } }).exports;
  loaded = {
    scratch(floats) {
      const need = SCRATCH_BASE + floats * FLOAT;
      if (need > memory.buffer.byteLength) memory.grow(Math.ceil((need - memory.buffer.byteLength) / PAGE));
      return new Float32Array(memory.buffer, SCRATCH_BASE);
    },
    address: (i) => SCRATCH_BASE + i * FLOAT,
    polyphase: exports.polyphase as SimdKernels['polyphase'],
    limit: exports.limit as SimdKernels['limit'],
    toInt16: exports.to_int16 as SimdKernels['toInt16'],
  };
  return loaded;
}
