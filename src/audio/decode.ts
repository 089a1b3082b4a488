import { id3v2Length, sniffContainer, type UploadContainer } from './sniff.ts';
import { scanOggPages } from './ogg-read.ts';
import { readWavChannels, readWavLayout, WavFormatError } from './wav-read.ts';

export type { UploadContainer } from './sniff.ts';

export type AudioDecodeErrorKind = 'unsupported' | 'corrupt' | 'too_long' | 'empty';

/** Why an upload could not be used; `kind` is stable for callers to map onto API errors. */
export class AudioDecodeError extends Error {
  override readonly name = 'AudioDecodeError';
  constructor(
    readonly kind: AudioDecodeErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface DecodedUpload {
  /** Mono (channels averaged), at the file's own rate. */
  samples: Float32Array;
  sampleRate: number;
  container: UploadContainer;
  seconds: number;
}

export interface DecodeOptions {
  /** Anything longer is refused with `too_long`, and decoding stops as soon as that is known. */
  maxSeconds: number;
}

interface DecodedChunk {
  channelData: Float32Array[];
  samplesDecoded: number;
  sampleRate: number;
  errors: readonly unknown[];
}

/** What the four wasm decoders have in common (some return promises, some not). */
interface ChunkDecoder {
  ready: Promise<void>;
  decode(data: Uint8Array): DecodedChunk | Promise<DecodedChunk>;
  flush?(): Promise<DecodedChunk>;
  free(): void;
}

// Compressed input is fed in small slices, so a file that expands enormously (a FLAC frame of 13 bytes
// can claim 65 535 samples) is caught after one slice rather than after decoding all of it. Ogg goes
// page by page (at most 64 KiB, in practice 4-8 KiB).
const SLICE_BYTES = { mp3: 8192, flac: 1024 } as const;

/** Gathers decoded audio as mono and stops the decode once it is over the limit. */
class MonoCollector {
  private parts: Float32Array[] = [];
  private total = 0;
  rate = 0;
  errors = 0;

  constructor(private readonly maxSeconds: number) {}

  add(chunk: DecodedChunk): void {
    this.errors += chunk.errors.length;
    const n = chunk.samplesDecoded;
    if (n === 0 || chunk.channelData.length === 0) return;
    if (this.rate === 0) this.rate = chunk.sampleRate;
    else if (chunk.sampleRate !== this.rate) throw new AudioDecodeError('corrupt', 'the sample rate changes within the file');
    this.parts.push(mixToMono(chunk.channelData, n));
    this.total += n;
    if (this.total > this.maxSeconds * this.rate) throw tooLong(this.maxSeconds);
  }

  result(): Float32Array {
    const out = new Float32Array(this.total);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

function tooLong(maxSeconds: number): AudioDecodeError {
  return new AudioDecodeError('too_long', `the audio is longer than ${maxSeconds} s`);
}

export function mixToMono(channels: readonly Float32Array[], length: number): Float32Array {
  // Copied even for mono: decoders may hand out views into memory they reuse.
  if (channels.length === 1) return channels[0].slice(0, length);
  const out = new Float32Array(length);
  for (const ch of channels) for (let i = 0; i < length; i++) out[i] += ch[i];
  const scale = 1 / channels.length;
  for (let i = 0; i < length; i++) out[i] *= scale;
  return out;
}

async function openDecoder(container: Exclude<UploadContainer, 'wav'>): Promise<ChunkDecoder> {
  // Loaded on demand: each library carries its own wasm, and most uploads need only one of them.
  switch (container) {
    case 'mp3': {
      const { MPEGDecoder } = await import('mpg123-decoder');
      const d = new MPEGDecoder({ enableGapless: true });
      return { ready: d.ready, decode: (data) => quietly(() => d.decode(data)), free: () => d.free() };
    }
    case 'ogg-opus': {
      const { OggOpusDecoder } = await import('ogg-opus-decoder');
      return new OggOpusDecoder();
    }
    case 'ogg-vorbis': {
      const { OggVorbisDecoder } = await import('@wasm-audio-decoders/ogg-vorbis');
      return new OggVorbisDecoder();
    }
    case 'flac': {
      const { FLACDecoder } = await import('@wasm-audio-decoders/flac');
      return new FLACDecoder();
    }
  }
}

/** Where FLAC frames start: after "fLaC" and the chain of metadata blocks; undefined if that is cut off. */
function flacAudioOffset(bytes: Uint8Array): number | undefined {
  for (let at = 4; at + 4 <= bytes.length;) {
    const last = (bytes[at] & 0x80) !== 0;
    at += 4 + ((bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]);
    if (last) return at <= bytes.length ? at : undefined;
  }
  return undefined;
}

interface Feed {
  pieces: Iterable<Uint8Array>;
  /** Whether data that should have held audio was there, so that getting none means damage. */
  hasPayload: boolean;
}

function* slices(bytes: Uint8Array, size: number): Generator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

function feedFor(container: Exclude<UploadContainer, 'wav'>, bytes: Uint8Array): Feed {
  if (container === 'ogg-opus' || container === 'ogg-vorbis') {
    const scan = scanOggPages(bytes);
    return { pieces: scan.pages, hasPayload: scan.stoppedBy !== undefined };
  }
  if (container === 'flac') {
    const audioAt = flacAudioOffset(bytes);
    return { pieces: slices(bytes, SLICE_BYTES.flac), hasPayload: audioAt === undefined || audioAt < bytes.length };
  }
  // An ID3 tag longer than the file was cut off: damage, not an empty file.
  return { pieces: slices(bytes, SLICE_BYTES.mp3), hasPayload: id3v2Length(bytes) !== bytes.length };
}

/**
 * mpg123-decoder prints every bad frame to console.error; a damaged upload would flood the service log.
 * Its decode() is synchronous, so the swap cannot catch anyone else's output.
 */
function quietly<T>(decode: () => T): T {
  const saved = console.error;
  console.error = () => {};
  try {
    return decode();
  } finally {
    console.error = saved;
  }
}

async function decodeCompressed(
  container: Exclude<UploadContainer, 'wav'>,
  bytes: Uint8Array,
  maxSeconds: number,
): Promise<{ samples: Float32Array; sampleRate: number }> {
  const feed = feedFor(container, bytes);
  const decoder = await openDecoder(container);
  const out = new MonoCollector(maxSeconds);
  try {
    await decoder.ready;
    for (const piece of feed.pieces) {
      const decoded = decoder.decode(piece);
      out.add(decoded instanceof Promise ? await decoded : decoded);
    }
    if (decoder.flush) out.add(await decoder.flush());
  } catch (err) {
    if (err instanceof AudioDecodeError) throw err;
    throw new AudioDecodeError(
      'corrupt',
      `the ${container} data could not be decoded: ${err instanceof Error ? err.message : String(err)}`,
    );
  } finally {
    decoder.free();
  }
  const samples = out.result();
  if (samples.length === 0) {
    // A container with nothing after its headers is empty; one with data that yields no audio is broken.
    if (out.errors > 0 || feed.hasPayload) throw new AudioDecodeError('corrupt', `the ${container} data could not be decoded`);
    throw new AudioDecodeError('empty', `the ${container} file holds no audio`);
  }
  return { samples, sampleRate: out.rate };
}

function decodeWav(bytes: Uint8Array, maxSeconds: number): { samples: Float32Array; sampleRate: number } {
  let layout;
  try {
    layout = readWavLayout(bytes);
  } catch (err) {
    if (err instanceof WavFormatError) throw new AudioDecodeError(err.kind, err.message);
    throw err;
  }
  const frames = layout.dataBytes / layout.blockAlign;
  // WAV cannot expand: what is present is what gets decoded. A header that claims more than the file holds
  // is a streamed or cut-off recording (espeak-ng --stdout writes 0x7ffff000), not a bomb, so only the
  // frames actually present count against the limit.
  if (frames > maxSeconds * layout.sampleRate) throw tooLong(maxSeconds);
  if (frames === 0) throw new AudioDecodeError('empty', 'the WAV file holds no audio');
  return { samples: mixToMono(readWavChannels(bytes, layout), frames), sampleRate: layout.sampleRate };
}

/**
 * Decodes an uploaded voice sample. The container is recognised from its bytes alone; a truncated file
 * yields the audio before the cut (a WAV shorter than its header says, an MP3/Ogg/FLAC stream that stops
 * mid-frame); one whose header or first frames are unreadable is `corrupt`.
 */
export async function decodeUpload(bytes: Uint8Array, opts: DecodeOptions): Promise<DecodedUpload> {
  if (!(opts.maxSeconds > 0)) throw new RangeError('maxSeconds must be positive');
  if (bytes.length === 0) throw new AudioDecodeError('empty', 'the upload is empty');
  const container = sniffContainer(bytes);
  if (!container) throw new AudioDecodeError('unsupported', 'not a WAV, MP3, Ogg Opus, Ogg Vorbis or FLAC file');
  const { samples, sampleRate } =
    container === 'wav'
      ? decodeWav(bytes, opts.maxSeconds)
      : await decodeCompressed(container, container === 'flac' ? bytes.subarray(id3v2Length(bytes)) : bytes, opts.maxSeconds);
  return { samples, sampleRate, container, seconds: samples.length / sampleRate };
}
