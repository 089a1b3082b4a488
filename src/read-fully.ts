import type { FileHandle } from 'node:fs/promises';

/**
 * Fills `into` from the file at `position`, straight into the caller's buffer (a large file read into a fresh
 * buffer and then copied would touch twice the memory); a single read may return less than asked.
 */
export async function readFully(file: FileHandle, into: Uint8Array, position: number): Promise<void> {
  for (let at = 0; at < into.length;) {
    const { bytesRead } = await file.read(into, at, into.length - at, position + at);
    if (bytesRead === 0) throw new Error(`the file ended at byte ${position + at}, ${into.length - at} bytes short`);
    at += bytesRead;
  }
}
