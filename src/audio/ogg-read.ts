import { oggCrc } from './encoders/ogg.ts';

export interface OggScan {
  /** Whole pages whose checksum matches, in order, as views into the input. */
  pages: Uint8Array[];
  /** Why the scan stopped before the end of the input, if it did. */
  stoppedBy: 'truncated' | 'bad-page' | undefined;
}

/**
 * Splits an Ogg stream into verified pages. The decoders downstream do not check page CRCs and will
 * decode a cut-off last page as garbage (measured: a 60 % truncated Opus file came out 75 % longer
 * than the original), so only whole, intact pages are passed on.
 */
export function scanOggPages(bytes: Uint8Array): OggScan {
  const pages: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (at + 27 > bytes.length) return { pages, stoppedBy: 'truncated' };
    if (bytes[at] !== 0x4f || bytes[at + 1] !== 0x67 || bytes[at + 2] !== 0x67 || bytes[at + 3] !== 0x53) {
      return { pages, stoppedBy: 'bad-page' };
    }
    const segments = bytes[at + 26];
    if (at + 27 + segments > bytes.length) return { pages, stoppedBy: 'truncated' };
    let body = 0;
    for (let i = 0; i < segments; i++) body += bytes[at + 27 + i];
    const end = at + 27 + segments + body;
    if (end > bytes.length) return { pages, stoppedBy: 'truncated' };
    const page = bytes.subarray(at, end);
    const stored = (page[22] | (page[23] << 8) | (page[24] << 16) | (page[25] << 24)) >>> 0;
    const copy = new Uint8Array(page); // a copy (Buffer#slice would be a view): the CRC field is zeroed
    copy.fill(0, 22, 26);
    if (oggCrc(copy) !== stored) return { pages, stoppedBy: 'bad-page' };
    pages.push(page);
    at = end;
  }
  return { pages, stoppedBy: undefined };
}
