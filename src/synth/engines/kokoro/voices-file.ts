// Kokoro's voices file (`voices-v1.0.bin`) is a NumPy .npz: a zip of `<voice>.npy` arrays, each float32
// [510, 1, 256] (one style row per phoneme count).
import { readFile } from 'node:fs/promises';
import { unzipSync } from 'fflate';

export const STYLE_ROWS = 510;
export const STYLE_DIM = 256;

/** Parses one .npy array; throws unless it is little-endian float32 of STYLE_ROWS x 1 x STYLE_DIM. */
export function parseStyleNpy(bytes: Uint8Array, name: string): Float32Array {
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
  if (bytes.length < 10 || magic.some((b, i) => bytes[i] !== b)) throw new Error(`${name}: not a .npy array`);
  const major = bytes[6];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = major >= 2 ? view.getUint32(8, true) : view.getUint16(8, true);
  const start = (major >= 2 ? 12 : 10) + headerLength;
  const header = new TextDecoder().decode(bytes.subarray(major >= 2 ? 12 : 10, start));
  if (!/'descr':\s*'<f4'/.test(header)) throw new Error(`${name}: style vectors must be float32 ('<f4'), header ${header.trim()}`);
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${name}: Fortran-ordered arrays are not supported`);
  const shape = /'shape':\s*\(([^)]*)\)/
    .exec(header)?.[1]
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  const count = shape?.reduce((a, b) => a * b, 1) ?? 0;
  if (!shape || shape[shape.length - 1] !== STYLE_DIM || count !== STYLE_ROWS * STYLE_DIM) {
    throw new Error(`${name}: shape (${shape?.join(', ') ?? '?'}) is not (${STYLE_ROWS}, 1, ${STYLE_DIM})`);
  }
  if (bytes.length - start < count * 4) throw new Error(`${name}: truncated (${bytes.length - start} of ${count * 4} data bytes)`);
  const data = bytes.slice(start, start + count * 4);
  return new Float32Array(data.buffer, 0, count);
}

/** Every voice of a voices file by name; throws with the reason for a broken or mismatched file. */
export async function readStyleVectors(path: string): Promise<Map<string, Float32Array>> {
  const bytes = await readFile(path);
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(bytes);
  } catch (err) {
    throw new Error(`not a readable .npz (zip) archive: ${err instanceof Error ? err.message : String(err)}`);
  }
  const out = new Map<string, Float32Array>();
  for (const [file, data] of Object.entries(entries)) {
    if (!file.endsWith('.npy')) continue;
    const name = file.slice(0, -4);
    out.set(name, parseStyleNpy(data, file));
  }
  if (out.size === 0) throw new Error('the archive holds no .npy style vectors');
  return out;
}
