import { createFlacEncoder } from './flac.ts';
import { createMp3Encoder } from './mp3.ts';
import { createOpusEncoder } from './opus.ts';
import { createF32Encoder, createPcm16Encoder } from './pcm.ts';
import type { EncodeFormat, EncoderOptions, FormatInfo, StreamEncoder } from './types.ts';
import { createWavEncoder } from './wav.ts';
import { MULAW_SAMPLE_RATE, STREAM_SAMPLE_RATE } from '../../schemas/speech.ts';

export type { EncodeFormat, EncoderOptions, FormatInfo, StreamEncoder } from './types.ts';

/** The engines' common output rate; every format but mu-law carries it unchanged. */
export const OUTPUT_RATE = STREAM_SAMPLE_RATE;

/**
 * Per format: what to send as Content-Type, the rate the encoder expects its input at, and a file
 * extension for downloads. mu-law is telephone audio: 8 kHz in a WAV container (DESIGN §5), which
 * every player opens, unlike headerless audio/basic. Keyed by the one list of encodings (schemas/speech.ts): a
 * format added there does not typecheck until it has a row here.
 */
export const FORMATS: Readonly<Record<EncodeFormat, FormatInfo>> = Object.freeze({
  mp3: { contentType: 'audio/mpeg', sampleRate: OUTPUT_RATE, extension: 'mp3' },
  wav: { contentType: 'audio/wav', sampleRate: OUTPUT_RATE, extension: 'wav' },
  opus: { contentType: 'audio/ogg', sampleRate: OUTPUT_RATE, extension: 'opus' },
  flac: { contentType: 'audio/flac', sampleRate: OUTPUT_RATE, extension: 'flac' },
  pcm: { contentType: 'audio/pcm', sampleRate: OUTPUT_RATE, extension: 'pcm' },
  mulaw: { contentType: 'audio/wav', sampleRate: MULAW_SAMPLE_RATE, extension: 'wav' },
  f32: { contentType: 'application/octet-stream', sampleRate: OUTPUT_RATE, extension: 'f32' },
});

export function isEncodeFormat(value: string): value is EncodeFormat {
  return Object.hasOwn(FORMATS, value);
}

/** Creates a fresh encoder for one stream; feed it mono float32 at FORMATS[format].sampleRate. */
export async function createEncoder(format: EncodeFormat, options: EncoderOptions = {}): Promise<StreamEncoder> {
  const buffered = options.buffered === true;
  switch (format) {
    case 'mp3':
      return createMp3Encoder(OUTPUT_RATE, buffered);
    case 'wav':
      return createWavEncoder('pcm16', OUTPUT_RATE, buffered);
    case 'opus':
      return createOpusEncoder(OUTPUT_RATE);
    case 'flac':
      return createFlacEncoder(OUTPUT_RATE, buffered);
    case 'pcm':
      return createPcm16Encoder(OUTPUT_RATE);
    case 'mulaw':
      return createWavEncoder('mulaw', FORMATS.mulaw.sampleRate, buffered);
    case 'f32':
      return createF32Encoder(OUTPUT_RATE);
  }
}
