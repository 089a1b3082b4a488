import { createFlacEncoder } from './flac.ts';
import { createMp3Encoder } from './mp3.ts';
import { createOpusEncoder } from './opus.ts';
import { createF32Encoder, createPcm16Encoder } from './pcm.ts';
import type { EncodeFormat, EncoderOptions, FormatInfo, StreamEncoder } from './types.ts';
import { createG711Encoder, createWavEncoder } from './wav.ts';

export { BARE_G711, withKnownWavLength } from './wav.ts';
import { ALAW_SAMPLE_RATE, MULAW_SAMPLE_RATE, STREAM_SAMPLE_RATE } from '../../schemas/speech.ts';

export type { EncodeFormat, EncoderOptions, FormatInfo, StreamEncoder } from './types.ts';

/** The engines' common output rate; every format but mu-law and A-law carries it unless a client chose another. */
export const OUTPUT_RATE = STREAM_SAMPLE_RATE;

/**
 * Per format: what to send as Content-Type, the rate the encoder expects its input at by default, and a file
 * extension for downloads. mu-law and A-law are telephone audio: 8 kHz in a WAV container, which
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
  alaw: { contentType: 'audio/wav', sampleRate: ALAW_SAMPLE_RATE, extension: 'wav' },
  f32: { contentType: 'application/octet-stream', sampleRate: OUTPUT_RATE, extension: 'f32' },
});

export function isEncodeFormat(value: string): value is EncodeFormat {
  return Object.hasOwn(FORMATS, value);
}

/** The formats whose encoder takes any rate (the raw and WAV ones); the codecs are built for the output rate. */
const ANY_RATE: ReadonlySet<EncodeFormat> = new Set(['wav', 'pcm', 'mulaw', 'alaw', 'f32']);

/**
 * The codecs' other choices: MP3 at the rates and constant bitrates LAME writes (MPEG-1 at 32 kHz and up, MPEG-2
 * below, each with its own bitrate table; 56 and 144 are left out, which wasm-media-encoders does not take), Opus
 * at any bitrate libopus takes (its streams always decode at 48 kHz).
 */
export const CODEC_CHOICES = Object.freeze({
  mp3: {
    rates: [16_000, 22_050, 24_000, 32_000, 44_100, 48_000] as readonly number[],
    bitrates: (rate: number): readonly number[] =>
      rate >= 32_000 ? [32, 40, 48, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320] : [8, 16, 24, 32, 40, 48, 64, 80, 96, 112, 128, 160],
    defaultBitrate: 64,
  },
  opus: { minBitrate: 6, maxBitrate: 510, defaultBitrate: 32 },
});

/** Why `bitrate` (kbit/s) at `rate` is not one `format` encodes, or null when it is. */
export function codecChoiceProblem(format: EncodeFormat, rate: number, bitrate: number | undefined): string | null {
  if (format === 'mp3') {
    if (!CODEC_CHOICES.mp3.rates.includes(rate)) return `mp3 is encoded at ${CODEC_CHOICES.mp3.rates.join(', ')} Hz`;
    const allowed = CODEC_CHOICES.mp3.bitrates(rate);
    if (bitrate !== undefined && !allowed.includes(bitrate)) return `mp3 at ${rate} Hz takes ${allowed.join(', ')} kbit/s`;
    return null;
  }
  if (format === 'opus') {
    if (rate !== FORMATS.opus.sampleRate) return `opus is encoded from ${FORMATS.opus.sampleRate} Hz`;
    const { minBitrate, maxBitrate } = CODEC_CHOICES.opus;
    if (bitrate !== undefined && !(Number.isInteger(bitrate) && bitrate >= minBitrate && bitrate <= maxBitrate))
      return `opus takes ${minBitrate} to ${maxBitrate} kbit/s`;
    return null;
  }
  if (bitrate !== undefined) return `${format} has no bitrate to choose`;
  return rate === FORMATS[format].sampleRate || ANY_RATE.has(format)
    ? null
    : `${format} is encoded at ${FORMATS[format].sampleRate} Hz only`;
}

/**
 * Creates a fresh encoder for one stream; feed it mono float32 at its `sampleRate` (options.sampleRate, else
 * FORMATS[format].sampleRate). Which rates a client may ask for is the speech service's rule; this only refuses
 * a rate the codec cannot carry.
 */
export async function createEncoder(format: EncodeFormat, options: EncoderOptions = {}): Promise<StreamEncoder> {
  const buffered = options.buffered === true;
  const rate = options.sampleRate ?? FORMATS[format].sampleRate;
  const problem = codecChoiceProblem(format, rate, options.bitrate);
  if (problem) throw new RangeError(problem);
  switch (format) {
    case 'mp3':
      return createMp3Encoder(
        rate as Parameters<typeof createMp3Encoder>[0],
        buffered,
        options.bitrate ?? CODEC_CHOICES.mp3.defaultBitrate,
      );
    case 'wav':
      return createWavEncoder('pcm16', rate, buffered);
    case 'opus':
      return createOpusEncoder(OUTPUT_RATE, options.bitrate ?? CODEC_CHOICES.opus.defaultBitrate);
    case 'flac':
      return createFlacEncoder(OUTPUT_RATE, buffered);
    case 'pcm':
      return createPcm16Encoder(rate);
    case 'mulaw':
      return options.headerless ? createG711Encoder('mulaw', rate) : createWavEncoder('mulaw', rate, buffered);
    case 'alaw':
      return options.headerless ? createG711Encoder('alaw', rate) : createWavEncoder('alaw', rate, buffered);
    case 'f32':
      return createF32Encoder(rate);
  }
}
