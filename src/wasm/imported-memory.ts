// Rewrites a WebAssembly binary so the memory it defines becomes an import (`env.memory`, same limits), which
// lets the caller hand every new instance the same, already resident memory. Only the import and memory
// sections change: an imported memory takes index 0, the index the defined one had, so the data segments and
// the memory export still point at it.

import { open } from 'node:fs/promises';
import { readFully } from '../read-fully.ts';
import { HEADER_BYTES, readU32, SECTION_CODE, SECTION_DATA, SECTION_DATA_COUNT, SECTION_IMPORT, SECTION_MEMORY } from './binary.ts';

/** The rewritten binary and the memory's initial size in 64 KiB pages. */
export interface ImportedMemoryModule {
  bytes: Uint8Array<ArrayBuffer>;
  initialPages: number;
  maximumPages: number | undefined;
}

const KIND_MEMORY = 0x02;

function u32(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

const name = (s: string): number[] => [...u32(s.length), ...new TextEncoder().encode(s)];

/** Sections from here on (code, data, data count) are copied as they are; everything the rewrite touches precedes them. */
const FIRST_UNTOUCHED = new Set([SECTION_CODE, SECTION_DATA, SECTION_DATA_COUNT]);

/** The rewritten start of a binary, up to (not including) byte `end` of the original, where the rest follows unchanged. */
interface RewrittenHead {
  head: Uint8Array<ArrayBuffer>;
  end: number;
  initialPages: number;
  maximumPages: number | undefined;
}

/**
 * Rewrites the sections before the code (import, memory and the small ones around them); null when `start`
 * (the binary's first bytes) ends before the code section does begin, so more of the binary is needed.
 */
function rewriteHead(start: Uint8Array, total: number): RewrittenHead | null {
  const sections: { id: number; body: Uint8Array }[] = [];
  let end = total;
  for (let at = HEADER_BYTES; at < total;) {
    if (at >= start.length) return null;
    const id = start[at];
    if (FIRST_UNTOUCHED.has(id)) {
      end = at;
      break;
    }
    if (at + 6 > start.length && at + 6 <= total) return null;
    const [size, body] = readU32(start, at + 1);
    if (body + size > total) throw new Error('malformed WebAssembly binary: section past the end');
    if (body + size > start.length) return null;
    sections.push({ id, body: start.subarray(body, body + size) });
    at = body + size;
  }
  const memory = sections.find((s) => s.id === SECTION_MEMORY);
  if (!memory) throw new Error('the module defines no memory');
  const [count, limitsAt] = readU32(memory.body, 0);
  if (count !== 1) throw new Error(`the module defines ${count} memories, not one`);
  const limits = memory.body.subarray(limitsAt);
  const flags = limits[0];
  if (flags !== 0 && flags !== 1) throw new Error('only plain 32-bit memories are supported');
  const [initialPages, maxAt] = readU32(limits, 1);
  const maximumPages = flags === 1 ? readU32(limits, maxAt)[0] : undefined;

  const entry = [...name('env'), ...name('memory'), KIND_MEMORY, ...limits];
  const imports = sections.find((s) => s.id === SECTION_IMPORT);
  let importBody: number[];
  if (imports) {
    const [n, rest] = readU32(imports.body, 0);
    importBody = [...u32(n + 1), ...imports.body.subarray(rest), ...entry];
  } else {
    importBody = [...u32(1), ...entry];
  }

  const parts: Uint8Array[] = [start.subarray(0, HEADER_BYTES)];
  const push = (id: number, body: ArrayLike<number>): void => {
    parts.push(Uint8Array.from([id, ...u32(body.length)]), body instanceof Uint8Array ? body : Uint8Array.from(body));
  };
  // Sections keep their order; a module without imports gets its import section where it belongs (after types).
  let placed = false;
  for (const s of sections) {
    if (s.id === SECTION_MEMORY) continue;
    if (!placed && (s.id === SECTION_IMPORT || (s.id > SECTION_IMPORT && s.id !== 0))) {
      push(SECTION_IMPORT, importBody);
      placed = true;
      if (s.id === SECTION_IMPORT) continue;
    }
    push(s.id, s.body);
  }
  if (!placed) push(SECTION_IMPORT, importBody);
  return { head: concat(parts, 0), end, initialPages, maximumPages };
}

/** The parts one after another, with `extra` bytes left free at the end. */
function concat(parts: Uint8Array[], extra: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0) + extra);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return bytes;
}

export function withImportedMemory(binary: Uint8Array): ImportedMemoryModule {
  const r = rewriteHead(binary, binary.length);
  if (!r) throw new Error('malformed WebAssembly binary: truncated');
  return { bytes: concat([r.head, binary.subarray(r.end)], 0), initialPages: r.initialPages, maximumPages: r.maximumPages };
}

/** How much of a file is read first for its head; flite's sections before the code take ~2 KiB. */
const HEAD_READ_BYTES = 64 * 1024;

/**
 * The same for a file, read straight into the rewritten binary: the bulk of it (code and data, 21 MB for
 * flite) is written into memory once, not read and then copied (fresh memory costs ~5-10 ms per MB to touch here,
 * the more on a busy machine).
 */
export async function readWithImportedMemory(path: string): Promise<ImportedMemoryModule> {
  const file = await open(path);
  try {
    const { size } = await file.stat();
    const start = new Uint8Array(Math.min(size, HEAD_READ_BYTES));
    await readFully(file, start, 0);
    const r = rewriteHead(start, size);
    if (!r) return withImportedMemory(await file.readFile());
    const bytes = concat([r.head], size - r.end);
    await readFully(file, bytes.subarray(r.head.length), r.end);
    return { bytes, initialPages: r.initialPages, maximumPages: r.maximumPages };
  } finally {
    await file.close();
  }
}
