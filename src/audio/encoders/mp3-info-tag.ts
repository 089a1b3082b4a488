// The Xing "Info" frame with a LAME extension: the de-facto way an MP3 says how many priming samples
// (encoder delay) and padding samples it holds, so that decoders (ffmpeg, mpg123, browsers) cut them
// and the decoded length equals the input length.

/** LAME's fixed encoder delay in samples; a decoder adds its own 529 on top, which it knows about. */
export const LAME_ENCODER_DELAY = 576;

const BITRATES_V1 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const BITRATES_V2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

export interface Mp3FrameHeader {
  /** Bytes in the frame, header included. */
  length: number;
  samplesPerFrame: number;
  sideInfoLength: number;
}

/** Parses a Layer III frame header at `at`, or returns undefined if there is none. */
export function parseMp3FrameHeader(bytes: Uint8Array, at: number): Mp3FrameHeader | undefined {
  if (at + 4 > bytes.length || bytes[at] !== 0xff || (bytes[at + 1] & 0xe0) !== 0xe0) return undefined;
  const version = (bytes[at + 1] >> 3) & 3; // 3 = MPEG-1, 2 = MPEG-2, 0 = MPEG-2.5
  const layer = (bytes[at + 1] >> 1) & 3; // 1 = Layer III
  const rates = RATES[version];
  if (!rates || layer !== 1) return undefined;
  const kbps = (version === 3 ? BITRATES_V1 : BITRATES_V2)[bytes[at + 2] >> 4];
  const sampleRate = rates[(bytes[at + 2] >> 2) & 3];
  if (!kbps || !sampleRate) return undefined;
  const padding = (bytes[at + 2] >> 1) & 1;
  const mono = bytes[at + 3] >> 6 === 3;
  const v1 = version === 3;
  return {
    length: Math.floor(((v1 ? 144 : 72) * kbps * 1000) / sampleRate) + padding,
    samplesPerFrame: v1 ? 1152 : 576,
    sideInfoLength: v1 ? (mono ? 17 : 32) : mono ? 9 : 17,
  };
}

/** Counts the frames of a stream of back-to-back Layer III frames. */
export function countMp3Frames(bytes: Uint8Array): number {
  let frames = 0;
  for (let at = 0; at < bytes.length;) {
    const h = parseMp3FrameHeader(bytes, at);
    if (!h) break;
    frames++;
    at += h.length;
  }
  return frames;
}

/** CRC-16 with the reflected 0x8005 polynomial (0xA001), initial value 0: the LAME tag's checksum. */
function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc;
}

export interface InfoTagFields {
  /** Audio frames after the Info frame, when known. */
  frames?: number;
  /** Bytes of the whole file including the Info frame, when known. */
  bytes?: number;
  /** Padding samples at the end, when known (0 otherwise: nothing is cut at the end). */
  padding?: number;
}

/**
 * Builds an Info frame shaped like `firstHeader` (same rate, bitrate and mode; padding bit cleared).
 * It decodes as one frame of silence for players that do not read it, as LAME's own does.
 */
export function buildInfoFrame(firstHeader: Uint8Array, fields: InfoTagFields): Uint8Array {
  const header = Uint8Array.from(firstHeader.subarray(0, 4));
  header[2] &= ~0x02;
  const h = parseMp3FrameHeader(header, 0);
  if (!h) throw new Error('not an mp3 frame header');
  const frame = new Uint8Array(h.length);
  const v = new DataView(frame.buffer);
  frame.set(header, 0);
  let at = 4 + h.sideInfoLength;
  frame.set([0x49, 0x6e, 0x66, 0x6f], at); // "Info": the Xing tag's name for constant bitrate
  const flags = (fields.frames !== undefined ? 1 : 0) | (fields.bytes !== undefined ? 2 : 0);
  v.setUint32(at + 4, flags);
  at += 8;
  if (fields.frames !== undefined) {
    v.setUint32(at, fields.frames);
    at += 4;
  }
  if (fields.bytes !== undefined) {
    v.setUint32(at, fields.bytes);
    at += 4;
  }
  const lameStart = at;
  frame.set(new TextEncoder().encode('LAME3.100'), at); // decoders only trust delays under a LAME version
  at += 9 + 1 + 1 + 4 + 2 + 2 + 1 + 1; // revision/method, lowpass, peak, two gains, flags, bitrate: all 0
  const delays = (LAME_ENCODER_DELAY << 12) | Math.min(fields.padding ?? 0, 4095);
  frame[at] = delays >>> 16;
  frame[at + 1] = (delays >>> 8) & 0xff;
  frame[at + 2] = delays & 0xff;
  at += 3 + 1 + 1 + 2; // misc, mp3 gain, preset
  v.setUint32(at, fields.bytes ?? 0); // music length
  at += 4 + 2; // music CRC left 0
  if (at + 2 > frame.length || at - lameStart !== 34) throw new Error('info tag does not fit');
  v.setUint16(at, crc16(frame.subarray(0, at)));
  return frame;
}
