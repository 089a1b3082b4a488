// A ZIP archive written as it is read: each entry's bytes are pulled from its source only when the reader asks
// for more, so a book of any length goes out in bounded memory. fflate writes the headers and the directory.
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';

export interface ZipEntry {
  name: string;
  data: AsyncIterable<Uint8Array> | Uint8Array;
  /** Deflate it (text); audio is stored as it is, since it does not compress. */
  deflate?: boolean;
}

export async function* zipStream(entries: Iterable<ZipEntry> | AsyncIterable<ZipEntry>, mtime: Date): AsyncGenerator<Uint8Array> {
  const out: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((err, chunk) => {
    if (err) failure = err;
    else out.push(chunk);
  });
  function* drain(): Generator<Uint8Array> {
    if (failure) throw failure;
    while (out.length > 0) yield out.shift() as Uint8Array;
  }
  let finished = false;
  try {
    for await (const entry of entries) {
      const file: ZipDeflate | ZipPassThrough = entry.deflate ? new ZipDeflate(entry.name, { level: 6 }) : new ZipPassThrough(entry.name);
      file.mtime = mtime;
      zip.add(file);
      if (entry.data instanceof Uint8Array) {
        file.push(entry.data, true);
      } else {
        for await (const chunk of entry.data) {
          file.push(chunk);
          yield* drain();
        }
        file.push(new Uint8Array(0), true);
      }
      yield* drain();
    }
    zip.end();
    yield* drain();
    finished = true;
  } finally {
    // A reader that hung up (or a source that failed) leaves the archive unfinished.
    if (!finished) zip.terminate();
  }
}
