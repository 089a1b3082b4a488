import type { StreamEncoder } from './types.ts';

// Typed-array views below write native byte order; every platform Node ships for is little-endian.
if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new Error('audio encoders assume a little-endian host');

/** Float [-1, 1] to 16-bit with clipping and rounding (not truncation, which adds a DC bias and distortion). */
export function floatToInt16(x: Float32Array): Int16Array {
  const out = new Int16Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const v = x[i] * 32767;
    out[i] = v >= 32767 ? 32767 : v <= -32768 ? -32768 : Math.round(v);
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

/** Raw float32 little-endian: what the WebSocket stream carries (SPEC §6). */
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
