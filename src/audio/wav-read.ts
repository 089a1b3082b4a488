import { bufferToFloat32Channels, SampleFormat, type BitDepth } from '@echogarden/wave-codec';

export interface WavLayout {
  format: SampleFormat;
  channels: number;
  sampleRate: number;
  bitDepth: BitDepth;
  blockAlign: number;
  dataOffset: number;
  /** Bytes of sample data actually present (whole frames only). */
  dataBytes: number;
  /** Frames the header claims, when it states a real size (not 0 / 0xFFFFFFFF "unknown"). */
  claimedFrames: number | undefined;
}

export class WavFormatError extends Error {
  constructor(
    readonly kind: 'unsupported' | 'corrupt',
    message: string,
  ) {
    super(message);
  }
}

const WAVE_FORMAT_EXTENSIBLE = 0xfffe;
const SUPPORTED: Record<number, readonly number[]> = {
  [SampleFormat.PCM]: [8, 16, 24, 32],
  [SampleFormat.Float]: [32, 64],
  [SampleFormat.Alaw]: [8],
  [SampleFormat.Mulaw]: [8],
};

/** Walks the RIFF chunks to the format and the sample data, without touching the samples. */
export function readWavLayout(bytes: Uint8Array): WavLayout {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const id = (at: number) => String.fromCharCode(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
  let fmt: Omit<WavLayout, 'dataOffset' | 'dataBytes' | 'claimedFrames'> | undefined;
  for (let at = 12; at + 8 <= bytes.length;) {
    const chunk = id(at);
    const size = v.getUint32(at + 4, true);
    const body = at + 8;
    if (chunk === 'fmt ') {
      if (size < 16 || body + 16 > bytes.length) throw new WavFormatError('corrupt', 'WAV fmt chunk is truncated');
      let tag = v.getUint16(body, true);
      const channels = v.getUint16(body + 2, true);
      const sampleRate = v.getUint32(body + 4, true);
      const blockAlign = v.getUint16(body + 12, true);
      const bits = v.getUint16(body + 14, true);
      if (tag === WAVE_FORMAT_EXTENSIBLE) {
        if (size < 40 || body + 26 > bytes.length) throw new WavFormatError('corrupt', 'WAV extensible fmt chunk is truncated');
        tag = v.getUint16(body + 24, true); // first two bytes of the sub-format GUID
      }
      const depths = SUPPORTED[tag];
      if (!depths) throw new WavFormatError('unsupported', `WAV sample format 0x${tag.toString(16)} is not supported`);
      if (!depths.includes(bits)) throw new WavFormatError('unsupported', `WAV with ${bits}-bit samples is not supported`);
      if (channels < 1 || channels > 32) throw new WavFormatError('corrupt', `WAV claims ${channels} channels`);
      if (sampleRate < 1000 || sampleRate > 384000) throw new WavFormatError('corrupt', `WAV claims ${sampleRate} Hz`);
      if (blockAlign !== (channels * bits) / 8) throw new WavFormatError('corrupt', 'WAV block alignment does not match its format');
      fmt = { format: tag as SampleFormat, channels, sampleRate, bitDepth: bits as BitDepth, blockAlign };
    } else if (chunk === 'data') {
      if (!fmt) throw new WavFormatError('corrupt', 'WAV data chunk comes before its format');
      // 0 and 0xFFFFFFFF are what streaming writers put when the length was not known: read to the end.
      const unknown = size === 0 || size === 0xffffffff;
      const present = Math.min(unknown ? Infinity : size, bytes.length - body);
      return {
        ...fmt,
        dataOffset: body,
        dataBytes: present - (present % fmt.blockAlign),
        claimedFrames: unknown ? undefined : Math.floor(size / fmt.blockAlign),
      };
    }
    at = body + size + (size & 1);
  }
  throw new WavFormatError('corrupt', fmt ? 'WAV has no data chunk' : 'WAV has no fmt chunk');
}

/** Decodes the sample data of a parsed WAV into one float array per channel. */
export function readWavChannels(bytes: Uint8Array, layout: WavLayout): Float32Array[] {
  // A copy: the converter views the bytes as Int16/Int32/Float arrays, which need aligned offsets.
  // (new Uint8Array(view) copies; Buffer#slice would not.)
  const data = new Uint8Array(bytes.subarray(layout.dataOffset, layout.dataOffset + layout.dataBytes));
  return bufferToFloat32Channels(data, layout.channels, layout.bitDepth, layout.format);
}
