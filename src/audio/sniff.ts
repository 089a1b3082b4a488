import { parseMp3FrameHeader } from './encoders/mp3-info-tag.ts';

export type UploadContainer = 'wav' | 'mp3' | 'ogg-opus' | 'ogg-vorbis' | 'flac';

function ascii(bytes: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + length));
}

/** Bytes taken by ID3v2 tags at the start (there may be several), so the audio after them can be sniffed. */
export function id3v2Length(bytes: Uint8Array): number {
  let at = 0;
  while (bytes.length >= at + 10 && ascii(bytes, at, 3) === 'ID3') {
    // The size is "synchsafe": four 7-bit bytes; a footer (flag bit 4) adds another 10 bytes.
    const size = ((bytes[at + 6] & 0x7f) << 21) | ((bytes[at + 7] & 0x7f) << 14) | ((bytes[at + 8] & 0x7f) << 7) | (bytes[at + 9] & 0x7f);
    at += 10 + size + (bytes[at + 5] & 0x10 ? 10 : 0);
  }
  return at;
}

function looksLikeMpegAudio(bytes: Uint8Array, at: number): boolean {
  const first = parseMp3FrameHeader(bytes, at);
  if (!first) return false;
  // One header can match by chance in random data; when the file is long enough, so must the next.
  const next = at + first.length;
  return next + 4 > bytes.length || parseMp3FrameHeader(bytes, next) !== undefined;
}

/**
 * Identifies the container from its first bytes, never from a declared type or file name.
 * `undefined` means not one we decode (AIFF, MP4/M4A, WebM, Ogg FLAC/Speex, text ...).
 */
export function sniffContainer(bytes: Uint8Array): UploadContainer | undefined {
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WAVE') return 'wav';
  if (bytes.length >= 4 && ascii(bytes, 0, 4) === 'OggS') {
    const segments = bytes[26] ?? 0;
    const body = 27 + segments;
    if (ascii(bytes, body, 8) === 'OpusHead') return 'ogg-opus';
    if (ascii(bytes, body, 7) === '\x01vorbis') return 'ogg-vorbis';
    return undefined;
  }
  if (bytes.length >= 4 && ascii(bytes, 0, 4) === 'fLaC') return 'flac';
  const afterId3 = id3v2Length(bytes);
  if (afterId3 > 0) {
    // ID3v2 is also put in front of FLAC files; an ID3 tag with no audio after it is still an MP3 upload.
    return ascii(bytes, afterId3, 4) === 'fLaC' ? 'flac' : 'mp3';
  }
  if (looksLikeMpegAudio(bytes, 0)) return 'mp3';
  return undefined;
}
