// Measuring synthesized audio in tests: decoding, loudness, speech span, pitch.
import { measurePitch } from '../../src/audio/analysis.ts';
import { concatSamples } from '../../src/audio/samples.ts';
import type { Engine, SynthesisOptions } from '../../src/synth/engine.ts';
import type { VoiceSpec } from '../../src/synth/voice-spec.ts';

export interface Audio {
  samples: Float32Array;
  rate: number;
}

export const concat = concatSamples;

export { concatBytes } from '../../src/audio/encoders/types.ts';

/** Everything an engine yields for one text. */
export async function render(
  engine: Engine,
  text: string,
  voice: VoiceSpec,
  options: SynthesisOptions = { speed: 1 },
): Promise<Audio & { chunks: number }> {
  const parts: Float32Array[] = [];
  let rate = 0;
  for await (const c of engine.synthesize(text, voice, options)) {
    parts.push(c.samples);
    rate = c.sampleRate;
  }
  return { samples: concat(parts), rate, chunks: parts.length };
}

export function rms(x: Float32Array): number {
  let s = 0;
  for (const v of x) s += v * v;
  return Math.sqrt(s / Math.max(1, x.length));
}

export function peak(x: Float32Array): number {
  let p = 0;
  for (const v of x) p = Math.max(p, Math.abs(v));
  return p;
}

/** Seconds from the first to the last 10 ms frame louder than 2 % of the loudest frame. */
export function speechSeconds({ samples, rate }: Audio): number {
  const frame = Math.round(rate / 100);
  const levels: number[] = [];
  for (let at = 0; at + frame <= samples.length; at += frame) levels.push(rms(samples.subarray(at, at + frame)));
  const threshold = Math.max(0.002, Math.max(0, ...levels) * 0.02);
  const first = levels.findIndex((l) => l > threshold);
  const last = levels.length - 1 - [...levels].reverse().findIndex((l) => l > threshold);
  return first < 0 ? 0 : (last - first + 1) / 100;
}

/** Median fundamental frequency (Hz) of the voiced frames, by the service's own pitch tracker. */
export function medianPitch({ samples, rate }: Audio): number {
  return measurePitch(samples, rate).medianHz;
}

/** Reads a PCM16 or mu-law WAV (a streamed one may carry 0xFFFFFFFF sizes: read to the end). */
export function decodeWav(bytes: Uint8Array): Audio & { format: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number): string => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (tag(0) !== 'RIFF' || tag(8) !== 'WAVE') throw new Error('not a WAV file');
  let format = 0;
  let rate = 0;
  for (let at = 12; at + 8 <= bytes.length;) {
    const id = tag(at);
    let size = view.getUint32(at + 4, true);
    if (id === 'fmt ') {
      format = view.getUint16(at + 8, true);
      rate = view.getUint32(at + 12, true);
    } else if (id === 'data') {
      if (size === 0xffffffff || at + 8 + size > bytes.length) size = bytes.length - at - 8;
      const body = bytes.subarray(at + 8, at + 8 + size);
      if (format === 1) {
        const n = Math.floor(body.length / 2);
        const out = new Float32Array(n);
        const dv = new DataView(body.buffer, body.byteOffset, body.byteLength);
        for (let i = 0; i < n; i++) out[i] = dv.getInt16(2 * i, true) / 32768;
        return { samples: out, rate, format };
      }
      if (format === 7) return { samples: Float32Array.from(body, mulawToFloat), rate, format };
      if (format === 6) return { samples: Float32Array.from(body, alawToFloat), rate, format };
      throw new Error(`unsupported WAV format ${format}`);
    }
    at += 8 + size + (size & 1);
  }
  throw new Error('WAV without data');
}

/** G.711 A-law expansion (ITU-T G.711 table: even bits inverted, sign bit set for positive values). */
function alawToFloat(byte: number): number {
  const a = byte ^ 0x55;
  const segment = (a >> 4) & 0x07;
  let t = (a & 0x0f) << 4;
  t += segment === 0 ? 8 : 0x108;
  if (segment > 1) t <<= segment - 1;
  return (a & 0x80 ? t : -t) / 32768;
}

function mulawToFloat(byte: number): number {
  const u = ~byte & 0xff;
  const sign = u & 0x80 ? -1 : 1;
  const exponent = (u >> 4) & 0x07;
  const mantissa = u & 0x0f;
  const magnitude = (((mantissa << 3) + 0x84) << exponent) - 0x84;
  return (sign * magnitude) / 32768;
}

export function decodeF32(bytes: Uint8Array): Float32Array {
  if (bytes.length % 4 !== 0) throw new Error(`f32 stream of ${bytes.length} bytes is not whole samples`);
  const copy = bytes.slice();
  return new Float32Array(copy.buffer, 0, copy.length / 4);
}

export function decodePcm16(bytes: Uint8Array): Float32Array {
  const n = Math.floor(bytes.length / 2);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = dv.getInt16(2 * i, true) / 32768;
  return out;
}

/** Decodes mp3, Ogg Opus or FLAC with the same wasm decoders the service uses for uploads. */
export async function decodeCompressed(format: 'mp3' | 'opus' | 'flac', bytes: Uint8Array): Promise<Audio> {
  if (format === 'mp3') {
    const { MPEGDecoder } = await import('mpg123-decoder');
    const d = new MPEGDecoder();
    await d.ready;
    const r = d.decode(bytes);
    d.free();
    return { samples: r.channelData[0], rate: r.sampleRate };
  }
  if (format === 'opus') {
    const { OggOpusDecoder } = await import('ogg-opus-decoder');
    const d = new OggOpusDecoder();
    await d.ready;
    const r = await d.decodeFile(bytes);
    d.free();
    return { samples: r.channelData[0], rate: r.sampleRate };
  }
  const { FLACDecoder } = await import('@wasm-audio-decoders/flac');
  const d = new FLACDecoder();
  await d.ready;
  const r = await d.decodeFile(bytes);
  d.free();
  return { samples: r.channelData[0], rate: r.sampleRate };
}
