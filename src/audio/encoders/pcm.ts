import { KERNEL_BLOCK, simdKernels } from '../simd/kernels.ts';
import type { StreamEncoder } from './types.ts';

// Typed-array views below write native byte order; every platform Node ships for is little-endian.
if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new Error('audio encoders assume a little-endian host');

/**
 * Float [-1, 1] to 16-bit with clipping and rounding (not truncation, which adds a DC bias and distortion):
 * round(x * 32767), halves rounded up, clipped to [-32768, 32767]. It runs in WebAssembly
 * (src/audio/simd/kernels.c): the JavaScript loop cost as much as the limiter.
 */
export function floatToInt16(x: Float32Array): Int16Array {
  const simd = simdKernels();
  const out = new Int16Array(x.length);
  const floats = simd.scratch(KERNEL_BLOCK + KERNEL_BLOCK / 2);
  const converted = new Int16Array(floats.buffer, floats.byteOffset + 4 * KERNEL_BLOCK, KERNEL_BLOCK);
  for (let at = 0; at < x.length; at += KERNEL_BLOCK) {
    const part = x.subarray(at, at + KERNEL_BLOCK);
    floats.set(part);
    simd.toInt16(simd.address(0), simd.address(KERNEL_BLOCK), part.length);
    out.set(converted.subarray(0, part.length), at);
  }
  return out;
}

export function int16Bytes(x: Float32Array): Uint8Array {
  const s = floatToInt16(x);
  return new Uint8Array(s.buffer, s.byteOffset, s.byteLength);
}

/** Raw 16-bit little-endian mono: no header, so every chunk is playable as it stands. */
export function createPcm16Encoder(sampleRate: number): StreamEncoder {
  return {
    contentType: 'audio/pcm',
    sampleRate,
    write: int16Bytes,
    end: () => new Uint8Array(0),
  };
}

/** Raw float32 little-endian: what the WebSocket stream carries (a client plays the samples as they come, with no decoder). */
export function createF32Encoder(sampleRate: number): StreamEncoder {
  return {
    contentType: 'application/octet-stream',
    sampleRate,
    write: (samples) => {
      const copy = samples.slice();
      return new Uint8Array(copy.buffer, copy.byteOffset, copy.byteLength);
    },
    end: () => new Uint8Array(0),
  };
}
