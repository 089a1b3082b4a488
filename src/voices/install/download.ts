// One catalogue file into a partial file: resumed from where it stopped (HTTP Range) after a cut connection or a
// killed process, its size and checksum checked before it counts as downloaded. A file that does not match is
// deleted; nothing unverified is ever renamed into VOICES_DIR (installer.ts does that). A source that sends next to
// nothing (a trickle of bytes keeps a connection open forever) fails the download after the idle timeout.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rm, stat } from 'node:fs/promises';
import type { CatalogFile } from './catalog.ts';
import { openSource, SourceError } from './source.ts';

export class VerifyError extends Error {}

/** The source went (next to) silent for the idle timeout: not retried, a trickle would be again. */
export class IdleError extends SourceError {
  constructor(message: string) {
    super(message, false);
  }
}

/** What a source must deliver within each idle window to count as downloading (about 1.5 KB/s at 45 s). */
export const IDLE_PROGRESS_BYTES = 64 * 1024;

/** VOICES_DOWNLOAD_IDLE_SECONDS's default. */
export const DEFAULT_DOWNLOAD_IDLE_MS = 45_000;

export interface DownloadOptions {
  signal?: AbortSignal;
  /** Bytes of this file on disk so far (resumed bytes included). */
  onBytes?(received: number): void;
  /** Tries after a cut or a failed request; default 5. */
  retries?: number;
  /**
   * A source that sends less than IDLE_PROGRESS_BYTES (or the rest of the file) within this long fails the download
   * with IdleError, without another try: a mirror that trickles would otherwise keep it going forever. Default 45 s.
   */
  idleMs?: number;
  /** First wait between tries, doubled each time; default 500 ms. */
  backoffMs?: number;
}

function digestOf(file: CatalogFile): { algorithm: 'sha256' | 'md5'; expected: string; label: string } {
  if (file.sha256) return { algorithm: 'sha256', expected: file.sha256.toLowerCase(), label: 'SHA-256' };
  if (file.md5) return { algorithm: 'md5', expected: file.md5.toLowerCase(), label: 'MD5' };
  throw new VerifyError(`${file.name} has no checksum in the catalogue`);
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

async function hashExisting(path: string, hash: Hash): Promise<void> {
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/**
 * Downloads `file` into `partPath` (continuing what is there) and verifies it. Throws VerifyError for a wrong
 * size or checksum (the partial file is deleted then) and SourceError when the source cannot be read after
 * the retries (the partial file is kept, so a later run resumes it).
 */
export async function downloadVerified(file: CatalogFile, partPath: string, options: DownloadOptions = {}): Promise<void> {
  const { signal, retries = 5, idleMs = DEFAULT_DOWNLOAD_IDLE_MS, backoffMs = 500 } = options;
  const { algorithm, expected, label } = digestOf(file);
  let hash = createHash(algorithm);
  let have = await sizeOf(partPath);
  if (have > file.size) {
    await rm(partPath, { force: true });
    have = 0;
  }
  if (have > 0) await hashExisting(partPath, hash);
  options.onBytes?.(have);
  const handle = await open(partPath, have > 0 ? 'r+' : 'w');
  try {
    let failures = 0;
    while (have < file.size) {
      signal?.throwIfAborted();
      const stall = new AbortController();
      const timer = setTimeout(() => stall.abort(), idleMs);
      const combined = signal ? AbortSignal.any([signal, stall.signal]) : stall.signal;
      const before = have;
      // The idle window starts again only once enough has arrived: single bytes do not keep it open.
      let windowFrom = have;
      try {
        const source = await openSource(new URL(file.url), have, combined);
        if (source.start === 0 && have > 0) {
          // The server sent the whole file again (no Range support): start over.
          hash = createHash(algorithm);
          have = 0;
          windowFrom = 0;
          await handle.truncate(0);
        }
        for await (const chunk of source.body) {
          if (have + chunk.length > file.size) {
            throw new VerifyError(`${file.name}: the server sent more than the catalogue's ${file.size} bytes`);
          }
          await handle.write(chunk, 0, chunk.length, have);
          hash.update(chunk);
          have += chunk.length;
          options.onBytes?.(have);
          if (have - windowFrom >= Math.min(IDLE_PROGRESS_BYTES, file.size - windowFrom)) {
            windowFrom = have;
            timer.refresh();
          }
        }
        if (have < file.size) throw new SourceError(`the connection closed after ${have} of ${file.size} bytes`, true);
      } catch (err) {
        if (err instanceof VerifyError) throw err;
        if (signal?.aborted) throw signal.reason;
        if (stall.signal.aborted) {
          throw new IdleError(
            `${file.name}: the source sent ${have - windowFrom} bytes in the last ${Math.round(idleMs / 1000)} s ` +
              `(VOICES_DOWNLOAD_IDLE_SECONDS), less than ${IDLE_PROGRESS_BYTES / 1024} KiB: download stopped (${have} of ${file.size} bytes downloaded)`,
          );
        }
        const wrapped =
          err instanceof SourceError
            ? err
            : new SourceError(`the connection broke: ${err instanceof Error ? err.message : String(err)}`, true);
        // Progress since the last failure resets the count: a flaky line that keeps delivering still finishes.
        failures = have > before ? 1 : failures + 1;
        if (!wrapped.retry || failures > retries) {
          throw new SourceError(`${file.name}: ${wrapped.message} (${have} of ${file.size} bytes downloaded)`, wrapped.retry);
        }
        await sleep(Math.min(10_000, backoffMs * 2 ** (failures - 1)), signal);
      } finally {
        clearTimeout(timer);
      }
    }
  } catch (err) {
    await handle.close();
    if (err instanceof VerifyError) await rm(partPath, { force: true });
    throw err;
  }
  await handle.close();
  const actual = hash.digest('hex');
  if (actual !== expected) {
    await rm(partPath, { force: true });
    throw new VerifyError(`${file.name}: ${label} ${actual} does not match the catalogue's ${expected}; the download was deleted`);
  }
}
