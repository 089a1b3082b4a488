// Rewrites a WebAssembly binary so the memory it defines becomes an import (`env.memory`, same limits), which
// lets the caller hand every new instance the same, already resident memory. Only the import and memory
// sections change: an imported memory takes index 0, the index the defined one had, so the data segments and
// the memory export still point at it.

/** The rewritten binary and the memory's initial size in 64 KiB pages. */
export interface ImportedMemoryModule {
  bytes: Uint8Array<ArrayBuffer>;
  initialPages: number;
  maximumPages: number | undefined;
}

const SECTION_IMPORT = 2;
const SECTION_MEMORY = 5;
const KIND_MEMORY = 0x02;
const HEADER_BYTES = 8;

function readU32(bytes: Uint8Array, at: number): [value: number, next: number] {
  let value = 0;
  let shift = 0;
  for (let i = at; i < bytes.length && shift < 35; i++, shift += 7) {
    value |= (bytes[i] & 0x7f) << shift;
    if (bytes[i] < 0x80) return [value >>> 0, i + 1];
  }
  throw new Error('malformed WebAssembly binary: bad LEB128 number');
}

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

export function withImportedMemory(binary: Uint8Array): ImportedMemoryModule {
  const sections: { id: number; body: Uint8Array }[] = [];
  for (let at = HEADER_BYTES; at < binary.length; ) {
    const id = binary[at];
    const [size, body] = readU32(binary, at + 1);
    if (body + size > binary.length) throw new Error('malformed WebAssembly binary: section past the end');
    sections.push({ id, body: binary.subarray(body, body + size) });
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

  const parts: Uint8Array[] = [binary.subarray(0, HEADER_BYTES)];
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
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return { bytes, initialPages, maximumPages };
}
