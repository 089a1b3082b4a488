import { float32ChannelsToBuffer, SampleFormat } from '@echogarden/wave-codec';
import { int16Bytes } from './pcm.ts';
import { concatBytes, EMPTY, type StreamEncoder } from './types.ts';

export type WavSampleFormat = 'pcm16' | 'mulaw' | 'alaw';

/** G.711's two companding laws: one byte per sample, WAV format tags 7 (mu-law) and 6 (A-law). */
const G711: Partial<Record<WavSampleFormat, SampleFormat>> = { mulaw: SampleFormat.Mulaw, alaw: SampleFormat.Alaw };

// A streamed file cannot know its length up front. 0xFFFFFFFF is the conventional "until end of file"
// size: ffmpeg/ffprobe, browsers and most players then read to EOF (measured: ffprobe gives the exact
// duration). Tools that trust the header (soxi, Python's wave) do not; they need the buffered form.
const UNKNOWN = 0xffffffff;

/**
 * RIFF/WAVE header. PCM uses the 16-byte fmt chunk; mu-law and A-law the 18-byte one plus a `fact` chunk with the
 * sample count, which the format requires for non-PCM data (left out when streaming, where the count is
 * unknown and a wrong one would be believed).
 */
export function wavHeader(format: WavSampleFormat, sampleRate: number, dataBytes: number | undefined): Uint8Array {
  const g711 = G711[format];
  const bytesPerSample = g711 === undefined ? 2 : 1;
  const withFact = g711 !== undefined && dataBytes !== undefined;
  const fmtSize = g711 === undefined ? 16 : 18;
  const size = 12 + 8 + fmtSize + (withFact ? 12 : 0) + 8;
  const h = new DataView(new ArrayBuffer(size));
  let at = 0;
  const tag = (s: string) => {
    for (let i = 0; i < 4; i++) h.setUint8(at++, s.charCodeAt(i));
  };
  const u32 = (v: number) => {
    h.setUint32(at, v, true);
    at += 4;
  };
  const u16 = (v: number) => {
    h.setUint16(at, v, true);
    at += 2;
  };
  tag('RIFF');
  u32(dataBytes === undefined ? UNKNOWN : size - 8 + dataBytes + (dataBytes & 1));
  tag('WAVE');
  tag('fmt ');
  u32(fmtSize);
  u16(g711 ?? SampleFormat.PCM);
  u16(1);
  u32(sampleRate);
  u32(sampleRate * bytesPerSample);
  u16(bytesPerSample);
  u16(bytesPerSample * 8);
  if (g711 !== undefined) u16(0);
  if (withFact) {
    tag('fact');
    u32(4);
    u32(dataBytes);
  }
  tag('data');
  u32(dataBytes === undefined ? UNKNOWN : dataBytes);
  return new Uint8Array(h.buffer);
}

/**
 * A streamed WAV whose whole length has become known (a cached answer replayed): the same bytes with the RIFF and
 * data sizes filled in, so tools that trust the header (soxi, Python's wave) read it too. `parts` is the file in
 * pieces, header first; an odd data length gets RIFF's pad byte as a last piece. Anything that is not a streamed
 * WAV header is returned as it is.
 */
export function withKnownWavLength(parts: readonly Uint8Array[]): Uint8Array[] {
  const first = parts[0];
  if (!first || first.length < 44 || String.fromCharCode(...first.subarray(0, 4)) !== 'RIFF') return [...parts];
  const view = new DataView(first.buffer, first.byteOffset, first.byteLength);
  if (view.getUint32(4, true) !== UNKNOWN) return [...parts];
  // The data chunk follows `fmt ` (16 or 18 bytes) directly in the streamed header.
  const fmtSize = view.getUint32(16, true);
  const dataAt = 20 + fmtSize;
  if (dataAt + 8 > first.length || String.fromCharCode(...first.subarray(dataAt, dataAt + 4)) !== 'data') return [...parts];
  const total = parts.reduce((n, p) => n + p.length, 0);
  const dataBytes = total - (dataAt + 8);
  // A copy (not Buffer's slice, a view): the cached chunk itself stays as it was.
  const header = new Uint8Array(first);
  const fixed = new DataView(header.buffer);
  fixed.setUint32(4, total - 8 + (dataBytes & 1), true);
  fixed.setUint32(dataAt + 4, dataBytes, true);
  return [header, ...parts.slice(1), ...(dataBytes & 1 ? [new Uint8Array(1)] : [])];
}

function samplesToBytes(format: WavSampleFormat, x: Float32Array): Uint8Array {
  const g711 = G711[format];
  return g711 === undefined ? int16Bytes(x) : float32ChannelsToBuffer([x], 8, g711);
}

/** How bare G.711 bytes are labelled: RFC 2046's audio/basic is mu-law; A-law has only an x- type. */
export const BARE_G711 = Object.freeze({
  mulaw: { contentType: 'audio/basic', extension: 'ulaw' },
  alaw: { contentType: 'audio/x-alaw-basic', extension: 'alaw' },
} as const);

/** Bare G.711 bytes, one per sample: every chunk playable as it stands, as telephony media streams expect. */
export function createG711Encoder(format: 'mulaw' | 'alaw', sampleRate: number): StreamEncoder {
  return {
    contentType: BARE_G711[format].contentType,
    sampleRate,
    write: (samples) => samplesToBytes(format, samples),
    end: () => EMPTY,
  };
}

/**
 * The most audio a buffered WAV holds back to send whole with its real sizes: 8 MiB, about 3 minutes of 16-bit
 * 24 kHz (17 minutes of G.711). A longer one turns into a stream there, with the open-ended header, so a request's
 * memory stays bounded and its unread audio holds back its synthesis as any stream's does.
 */
export const WHOLE_WAV_MAX_BYTES = 8 * 1024 * 1024;

export function createWavEncoder(
  format: WavSampleFormat,
  sampleRate: number,
  buffered: boolean,
  wholeMaxBytes = WHOLE_WAV_MAX_BYTES,
): StreamEncoder {
  const contentType = 'audio/wav';
  if (buffered) {
    let parts: Uint8Array[] | null = [];
    let bytes = 0;
    return {
      contentType,
      sampleRate,
      write(samples) {
        const b = samplesToBytes(format, samples);
        if (parts === null) return b;
        parts.push(b);
        bytes += b.length;
        if (bytes <= wholeMaxBytes) return EMPTY;
        // Too long to hold: from here on a stream, starting with what was held.
        const held = concatBytes([wavHeader(format, sampleRate, undefined), ...parts]);
        parts = null;
        return held;
      },
      end() {
        if (parts === null) return EMPTY;
        // RIFF chunks are word-aligned; an odd G.711 byte count needs one pad byte after the data.
        const pad = bytes & 1 ? [new Uint8Array(1)] : [];
        return concatBytes([wavHeader(format, sampleRate, bytes), ...parts, ...pad]);
      },
    };
  }
  let headerSent = false;
  return {
    contentType,
    sampleRate,
    write(samples) {
      const b = samplesToBytes(format, samples);
      if (headerSent) return b;
      headerSent = true;
      return concatBytes([wavHeader(format, sampleRate, undefined), b]);
    },
    end() {
      if (headerSent) return EMPTY;
      headerSent = true;
      return wavHeader(format, sampleRate, undefined);
    },
  };
}
