// Kokoro's voices file (`voices-v1.0.bin`) is a NumPy .npz: a zip of `<voice>.npy` arrays, each float32
// [510, 1, 256] (one style row per phoneme count). Read as untrusted input: the archive's size, its entries'
// unpacked sizes, the voice names and the style values are bounded, and a voice outside them is left out.
import { readFile, stat } from 'node:fs/promises';
import { unzipSync } from 'fflate';

export const STYLE_ROWS = 510;
export const STYLE_DIM = 256;

export const KOKORO_VOICES_BOUNDS = Object.freeze({
  /** v1.0's file holds 54 voices in 27 MB. */
  voices: 512,
  fileBytes: 512 * (STYLE_ROWS * STYLE_DIM * 4 + 4096),
  /** One .npy unpacked: the array and a header. */
  entryBytes: STYLE_ROWS * STYLE_DIM * 4 + 4096,
  /** Style values of real voices are within about ±2. */
  maxStyle: 100,
  /** Names are a language letter, a gender letter, `_` and a word: `af_heart`. */
  name: /^[a-z]{2}_[a-z0-9]+(?:_[a-z0-9]+)*$/i,
  nameChars: 40,
} as const);

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
  const styles = new Float32Array(data.buffer, 0, count);
  const max = KOKORO_VOICES_BOUNDS.maxStyle;
  for (const x of styles) if (!(x >= -max && x <= max)) throw new Error(`${name}: a style value is ${x}, outside ±${max}`);
  return styles;
}

/**
 * Every usable voice of a voices file by name; a voice outside the bounds is left out and told to `onProblem`.
 * Throws with the reason for a file that is broken, too large, or holds no usable voice.
 */
export async function readStyleVectors(path: string, onProblem?: (reason: string) => void): Promise<Map<string, Float32Array>> {
  const B = KOKORO_VOICES_BOUNDS;
  const { size } = await stat(path);
  if (size > B.fileBytes) throw new Error(`${size} bytes, more than a voices file of ${B.voices} voices (${B.fileBytes})`);
  const bytes = await readFile(path);
  let entries: Record<string, Uint8Array>;
  let count = 0;
  try {
    entries = unzipSync(bytes, {
      filter: (f) => {
        if (!f.name.endsWith('.npy')) return false;
        if (++count > B.voices) throw new Error(`more than ${B.voices} voices`);
        // A style array is 522 KB: a larger entry (a zip bomb) is never unpacked.
        if (f.originalSize > B.entryBytes) {
          onProblem?.(`${f.name}: unpacks to ${f.originalSize} bytes, more than a style array (${B.entryBytes})`);
          return false;
        }
        return true;
      },
    });
  } catch (err) {
    throw new Error(`not a readable .npz (zip) archive: ${err instanceof Error ? err.message : String(err)}`);
  }
  const out = new Map<string, Float32Array>();
  for (const [file, data] of Object.entries(entries)) {
    const name = file.slice(0, -4);
    if (name.length > B.nameChars || !B.name.test(name)) {
      onProblem?.(`${file.slice(0, 60)}: not a Kokoro voice name (a language letter, a gender letter, "_" and a word)`);
      continue;
    }
    try {
      out.set(name, parseStyleNpy(data, file));
    } catch (err) {
      onProblem?.(err instanceof Error ? err.message : String(err));
    }
  }
  if (out.size === 0) throw new Error('the archive holds no usable .npy style vectors');
  return out;
}
