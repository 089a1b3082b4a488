// Ogg page framing (RFC 3533), just enough to carry one logical stream of small packets.

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let k = 0; k < 8; k++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    t[i] = r >>> 0;
  }
  return t;
})();

/** Ogg's CRC-32: polynomial 0x04C11DB7, not reflected, zero initial value, no final xor. */
export function oggCrc(bytes: Uint8Array): number {
  let crc = 0;
  for (let i = 0; i < bytes.length; i++) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ bytes[i]) & 0xff]) >>> 0;
  return crc;
}

export const PAGE_BOS = 0x02;
export const PAGE_EOS = 0x04;
// 255 lacing values per page; a packet of n bytes takes floor(n/255)+1 of them.
const MAX_SEGMENTS = 255;

export class OggPageWriter {
  private sequence = 0;

  constructor(private readonly serial: number) {}

  /** Lacing values a packet needs; packets here are small, so one that cannot fit in a page is an error. */
  static segmentsFor(packet: Uint8Array): number {
    return Math.floor(packet.length / 255) + 1;
  }

  static readonly maxSegments = MAX_SEGMENTS;

  /** One page holding whole packets; `granule` is the position after the last of them. */
  page(packets: readonly Uint8Array[], granule: bigint, flags: number): Uint8Array {
    const lacing: number[] = [];
    let body = 0;
    for (const p of packets) {
      for (let left = p.length; ; left -= 255) {
        lacing.push(Math.min(left, 255));
        if (left < 255) break;
      }
      body += p.length;
    }
    if (lacing.length > MAX_SEGMENTS) throw new Error('ogg page overflow');
    const out = new Uint8Array(27 + lacing.length + body);
    const v = new DataView(out.buffer);
    out.set([0x4f, 0x67, 0x67, 0x53], 0); // "OggS"
    out[4] = 0; // stream structure version
    out[5] = flags;
    v.setBigInt64(6, granule, true);
    v.setUint32(14, this.serial, true);
    v.setUint32(18, this.sequence++, true);
    out[26] = lacing.length;
    out.set(lacing, 27);
    let at = 27 + lacing.length;
    for (const p of packets) {
      out.set(p, at);
      at += p.length;
    }
    v.setUint32(22, oggCrc(out), true);
    return out;
  }
}
