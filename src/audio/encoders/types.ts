import type { AudioEncoding } from '../../schemas/speech.ts';

/** Output formats of /v1/speak plus raw float32 for the WebSocket stream: the one list in schemas/speech.ts. */
export type EncodeFormat = AudioEncoding;

/**
 * A streaming encoder: mono float32 samples at `sampleRate` in, container bytes out as soon as they exist.
 * Returned arrays are owned by the caller; an empty array means nothing is ready yet.
 */
export interface StreamEncoder {
  readonly contentType: string;
  readonly sampleRate: number;
  write(samples: Float32Array): Uint8Array;
  /** Flushes the codec and returns the last bytes; the encoder is unusable afterwards. */
  end(): Uint8Array;
}

export interface EncoderOptions {
  /**
   * Collect everything and emit one complete file from end(), with exact lengths in its header
   * (wav, mulaw, flac; mp3 gets a full Info/LAME tag so decoders cut its padding too). Formats that
   * carry no length up front (opus, pcm, f32) ignore it.
   */
  buffered?: boolean;
  /** Output rate in Hz for the formats that take any (wav, pcm, mulaw, alaw, f32); the format's own rate by default. */
  sampleRate?: number;
  /** mulaw and alaw only: the bare G.711 bytes, without the WAV header (telephony APIs take them so). */
  headerless?: boolean;
  /** mp3 and opus: the bitrate in kbit/s (CODEC_CHOICES); each codec's own by default. */
  bitrate?: number;
}

export interface FormatInfo {
  readonly contentType: string;
  readonly sampleRate: number;
  readonly extension: string;
}

export const EMPTY = new Uint8Array(0);

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
