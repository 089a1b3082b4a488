// Shared test signals and measurements for the audio tests (not a test file itself).
import assert from 'node:assert/strict';

export function sine(freq: number, seconds: number, rate: number, amp = 0.5): Float32Array {
  const n = Math.round(seconds * rate);
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) x[i] = amp * Math.sin((2 * Math.PI * freq * i) / rate);
  return x;
}

/** Frequency of a clean tone from its rising zero crossings, interpolated between samples. */
export function toneFrequency(x: Float32Array, rate: number): number {
  const crossings: number[] = [];
  for (let i = 1; i < x.length; i++) {
    if (x[i - 1] < 0 && x[i] >= 0) crossings.push(i - 1 + -x[i - 1] / (x[i] - x[i - 1]));
  }
  if (crossings.length < 2) return 0;
  return ((crossings.length - 1) * rate) / (crossings[crossings.length - 1] - crossings[0]);
}

export function semitones(a: number, b: number): number {
  return Math.abs(12 * Math.log2(a / b));
}

export function concatF32(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function rms(x: Float32Array): number {
  let s = 0;
  for (const v of x) s += v * v;
  return Math.sqrt(s / Math.max(1, x.length));
}

/** How many samples a 16-bit mono WAV file holds (its data chunk follows a 44-byte header); fails on a non-RIFF file. */
export function wavSampleCount(bytes: Uint8Array): number {
  assert.equal(Buffer.from(bytes.subarray(0, 4)).toString('latin1'), 'RIFF');
  return (bytes.length - 44) / 2;
}

/** Little-endian 16-bit PCM (a `pcm` response body, a WAV's data) as samples in [-1, 1). */
export function pcm16Samples(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(bytes.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = view.getInt16(2 * i, true) / 32768;
  return out;
}

/**
 * The 44-byte header of a mono 16-bit PCM WAV; `dataBytes` is what it claims (capped at 32 bits), whatever
 * follows, so a test can also write a header that lies.
 */
export function pcm16WavHeader(rate: number, dataBytes: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(Math.min(0xffffffff, 36 + dataBytes), 4);
  h.write('WAVEfmt ', 8, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(Math.min(0xffffffff, dataBytes), 40);
  return h;
}

/** A mono 16-bit PCM WAV file of `samples` (integer sample values, clamped to 16 bits). */
export function pcm16Wav(samples: ArrayLike<number>, rate: number): Buffer {
  const n = samples.length;
  const data = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) data.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(samples[i]))), i * 2);
  return Buffer.concat([pcm16WavHeader(rate, data.length), data]);
}
