// Where a WebAssembly binary's active data segments land in memory. Instantiating a module writes them
// into its memory, so a caller that reuses one memory for instance after instance (flite/program.ts) only
// has to clear what lies outside them to give each instance the memory a fresh one would have.
import { HEADER_BYTES, readS32, readU32, SECTION_DATA } from './binary.ts';

const I32_CONST = 0x41;
const END = 0x0b;

/**
 * The byte ranges [start, end) the active segments of memory 0 write, sorted and merged; null when a segment
 * is placed by anything but a constant (a global's value, say) or is passive, so the ranges cannot be known
 * before instantiation.
 */
export function activeDataRanges(binary: Uint8Array): Array<[number, number]> | null {
  let data: Uint8Array | undefined;
  for (let at = HEADER_BYTES; at < binary.length;) {
    const id = binary[at];
    const [size, body] = readU32(binary, at + 1);
    if (id === SECTION_DATA) data = binary.subarray(body, body + size);
    at = body + size;
  }
  if (!data) return [];
  const ranges: Array<[number, number]> = [];
  let [count, p] = readU32(data, 0);
  for (; count > 0; count--) {
    const flags = data[p++];
    // 0: active in memory 0 at a constant expression; 2 names the memory first (only memory 0 counts here).
    if (flags === 2) {
      const [memory, next] = readU32(data, p);
      if (memory !== 0) return null;
      p = next;
    } else if (flags !== 0) {
      return null;
    }
    if (data[p] !== I32_CONST) return null;
    const [offset, afterOffset] = readS32(data, p + 1);
    if (data[afterOffset] !== END) return null;
    const [length, bytesAt] = readU32(data, afterOffset + 1);
    if (length > 0) ranges.push([offset, offset + length]);
    p = bytesAt + length;
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [s, e] of ranges) {
    const last = merged.at(-1);
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else merged.push([s, e]);
  }
  return merged;
}

/** Zeroes `memory` everywhere but inside `ranges` (sorted, merged, as activeDataRanges gives them). */
export function zeroOutside(memory: Uint8Array, ranges: ReadonlyArray<readonly [number, number]>): void {
  let from = 0;
  for (const [start, end] of ranges) {
    if (start >= memory.length) break;
    if (start > from) memory.fill(0, from, start);
    from = Math.max(from, end);
  }
  if (from < memory.length) memory.fill(0, from);
}
