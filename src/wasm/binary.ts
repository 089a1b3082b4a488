// The parts of the WebAssembly binary format that both binary readers here need (imported-memory.ts rewrites a
// module's memory into an import, data-segments.ts finds where its data lands): the header, section ids and
// LEB128 numbers.

/** The magic number and version before the first section. */
export const HEADER_BYTES = 8;

export const SECTION_IMPORT = 2;
export const SECTION_MEMORY = 5;
export const SECTION_CODE = 10;
export const SECTION_DATA = 11;
export const SECTION_DATA_COUNT = 12;

/** An unsigned LEB128 number at `at`: its value and where the next field starts. */
export function readU32(bytes: Uint8Array, at: number): [value: number, next: number] {
  let value = 0;
  for (let i = at, shift = 0; i < bytes.length && shift < 35; i++, shift += 7) {
    value |= (bytes[i] & 0x7f) << shift;
    if (bytes[i] < 0x80) return [value >>> 0, i + 1];
  }
  throw new Error('malformed WebAssembly binary: bad LEB128 number');
}

/** A signed LEB128 (an i32.const operand), returned as the unsigned 32-bit value an address takes. */
export function readS32(bytes: Uint8Array, at: number): [value: number, next: number] {
  let value = 0;
  let shift = 0;
  for (let i = at; i < bytes.length && shift < 35; i++) {
    const byte = bytes[i];
    value |= (byte & 0x7f) << shift;
    shift += 7;
    if (byte < 0x80) {
      if (shift < 32 && byte & 0x40) value |= ~0 << shift;
      return [value >>> 0, i + 1];
    }
  }
  throw new Error('malformed WebAssembly binary: bad LEB128 number');
}
