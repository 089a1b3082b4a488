// Installing and removing catalogue voices in VOICES_DIR. Files are downloaded into VOICES_DIR/.partial/ (on the
// same file system, so the final move is an atomic rename), verified, then renamed into place, the model last:
// a scan of the folder (this node's or another's) never sees a half file or half a voice. Each file is locked
// while it is fetched (an exclusive lock file with a heartbeat), so processes sharing one VOICES_DIR never
// download the same file twice: the second waits, then finds it installed.
import { hostname } from 'node:os';
import { mkdir, open, readdir, rename, rm, rmdir, stat, utimes } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { CatalogFile, CatalogVoice } from './catalog.ts';
import { kokoroName, kokoroStem } from './catalog.ts';
import { downloadVerified } from './download.ts';

export const STAGING_DIR = '.partial';

export type InstallPhase = 'waiting' | 'downloading' | 'installed';

export interface InstallProgress {
  voice: string;
  phase: InstallPhase;
  /** The file being fetched (or waited for). */
  file: string;
  /** Bytes of the voice on disk (files already installed count whole). */
  received: number;
  total: number;
  bytesPerSecond: number;
  /** Null until the speed is known. */
  secondsLeft: number | null;
}

export interface InstallOptions {
  voicesDir: string;
  signal?: AbortSignal;
  onProgress?(p: InstallProgress): void;
  /** Download retries per file (download.ts); for tests. */
  retries?: number;
  backoffMs?: number;
  /** A source sending (next to) nothing this long fails the install (download.ts); VOICES_DOWNLOAD_IDLE_SECONDS. */
  idleMs?: number;
}

/** The abort reason of an install stopped on purpose: unlike a shutdown, its partial files are deleted. */
export class InstallCancelled extends Error {}

export interface InstallResult {
  /** False when every file was already there (installed earlier, or by another process meanwhile). */
  downloaded: boolean;
  files: string[];
}

/** A lock not refreshed for this long belongs to a process that died; it is taken over. */
const LOCK_STALE_MS = 20_000;
const LOCK_HEARTBEAT_MS = 3_000;
const LOCK_POLL_MS = 200;

async function present(dir: string, file: CatalogFile): Promise<boolean> {
  try {
    return (await stat(join(dir, file.name))).size === file.size;
  } catch {
    return false;
  }
}

/** Whether every file of the voice is in VOICES_DIR at its catalogue size. */
export async function isInstalled(voicesDir: string, voice: CatalogVoice): Promise<boolean> {
  for (const f of voice.files) if (!(await present(voicesDir, f))) return false;
  return true;
}

interface HeldLock {
  release(): Promise<void>;
}

/** Takes the lock at `path` (waiting while another live process holds it), then keeps it fresh until released. */
async function lock(path: string, signal: AbortSignal | undefined, onWait: () => void): Promise<HeldLock> {
  for (;;) {
    signal?.throwIfAborted();
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() }));
      await handle.close();
      const beat = setInterval(() => {
        const now = new Date();
        void utimes(path, now, now).catch(() => undefined);
      }, LOCK_HEARTBEAT_MS);
      beat.unref();
      return {
        release: async () => {
          clearInterval(beat);
          await rm(path, { force: true });
        },
      };
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ENOENT') {
        // The staging folder was removed by a process that finished meanwhile.
        await mkdir(dirname(path), { recursive: true });
        continue;
      }
      if (code !== 'EEXIST') throw err;
    }
    try {
      const st = await stat(path);
      if (Date.now() - st.mtimeMs > LOCK_STALE_MS) {
        // Whoever held it stopped refreshing it (killed): take it over. Removing a lock another waiter just
        // took over is harmless: its exclusive create above is what decides, and it re-checks the file.
        await rm(path, { force: true });
        continue;
      }
    } catch {
      continue; // released meanwhile
    }
    onWait();
    await new Promise((r) => setTimeout(r, LOCK_POLL_MS));
  }
}

/**
 * Installs `voice` into VOICES_DIR: each missing file downloaded (resumed, retried), verified against the
 * catalogue's size and checksum, then all of them renamed into place. A file that fails verification is
 * deleted and the install stops with the reason; nothing of the voice is then in VOICES_DIR.
 */
export async function installVoice(voice: CatalogVoice, options: InstallOptions): Promise<InstallResult> {
  const { voicesDir, signal } = options;
  const staging = join(voicesDir, STAGING_DIR);
  await mkdir(staging, { recursive: true });
  const total = voice.size;
  const started = Date.now();
  let resumedFrom = 0;
  let last = 0;
  const report = (phase: InstallPhase, file: string, received: number) => {
    const now = Date.now();
    if (phase === 'downloading' && now - last < 100 && received < total) return;
    last = now;
    const seconds = (now - started) / 1000;
    const speed = seconds > 0.2 ? Math.max(0, received - resumedFrom) / seconds : 0;
    options.onProgress?.({
      voice: voice.name,
      phase,
      file,
      received,
      total,
      bytesPerSecond: speed,
      secondsLeft: speed > 0 ? Math.max(0, (total - received) / speed) : null,
    });
  };

  // Every lock of the voice, in name order (the same order for every process: no two wait on each other).
  const files = [...voice.files].sort((a, b) => a.name.localeCompare(b.name));
  const held: HeldLock[] = [];
  const moves: { from: string; to: string; file: CatalogFile }[] = [];
  let downloaded = false;
  try {
    for (const f of files) {
      held.push(await lock(join(staging, `${f.name}.lock`), signal, () => report('waiting', f.name, 0)));
    }
    let done = 0;
    for (const f of voice.files) {
      if (await present(voicesDir, f)) {
        done += f.size;
        continue;
      }
      const part = join(staging, `${f.name}.part`);
      const offset = done;
      let firstBytes = true;
      await downloadVerified(f, part, {
        signal,
        retries: options.retries,
        backoffMs: options.backoffMs,
        idleMs: options.idleMs,
        onBytes: (n) => {
          if (firstBytes) {
            // Bytes a previous run left are not this run's speed.
            resumedFrom += n;
            firstBytes = false;
          }
          report('downloading', f.name, offset + n);
        },
      });
      downloaded = true;
      done += f.size;
      moves.push({ from: part, to: join(voicesDir, f.name), file: f });
    }
    // Into place, the model last (files are sorted that way in the catalogue): a scan in between sees no voice yet.
    for (const m of moves) await rename(m.from, m.to);
    report('installed', voice.files[voice.files.length - 1]?.name ?? voice.name, total);
    return { downloaded, files: voice.files.map((f) => f.name) };
  } catch (err) {
    // A failure or a cancel leaves nothing behind; an interruption (Ctrl+C, shutdown) keeps what arrived, for the
    // next run. Only the files whose locks are held are this install's to delete.
    const interrupted = signal?.aborted && !(signal.reason instanceof InstallCancelled);
    if (!interrupted) {
      for (const f of files.slice(0, held.length)) await rm(join(staging, `${f.name}.part`), { force: true });
    }
    throw err;
  } finally {
    for (const h of held.reverse()) await h.release();
    await rmdir(staging).catch(() => undefined); // only when empty: another install may be using it
  }
}

export interface InstalledVoice {
  /** The catalogue name (`en_US-lessac-medium`, `kokoro-v1.0-int8`). */
  name: string;
  engine: 'piper' | 'kokoro';
  files: string[];
  size: number;
}

async function sizeOrZero(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

/** What VOICES_DIR holds, by catalogue name: Piper name.onnx + name.onnx.json pairs and Kokoro models. */
export async function listInstalled(voicesDir: string): Promise<InstalledVoice[]> {
  let names: string[];
  try {
    names = await readdir(voicesDir);
  } catch {
    return [];
  }
  const present = new Set(names);
  const voicesBins = names.filter((n) => /^voices.*\.bin$/i.test(n));
  const out: InstalledVoice[] = [];
  for (const n of names.sort()) {
    if (!n.endsWith('.onnx')) continue;
    const stem = n.slice(0, -'.onnx'.length);
    if (/^kokoro/i.test(stem)) {
      const files = [n, ...voicesBins];
      let size = 0;
      for (const f of files) size += await sizeOrZero(join(voicesDir, f));
      out.push({ name: kokoroName(stem), engine: 'kokoro', files, size });
    } else if (present.has(`${n}.json`)) {
      const files = [n, `${n}.json`];
      let size = 0;
      for (const f of files) size += await sizeOrZero(join(voicesDir, f));
      out.push({ name: stem, engine: 'piper', files, size });
    }
  }
  return out;
}

export class NotInstalledError extends Error {}

/**
 * Removes an installed voice by catalogue name: its model first (so it leaves every listing at once), then the
 * rest. Kokoro's voices file stays while another Kokoro model uses it.
 */
export async function removeVoice(voicesDir: string, name: string): Promise<string[]> {
  // A file name, never a path: nothing outside VOICES_DIR can be named.
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/.test(name) || name.includes('..')) throw new NotInstalledError(`${name} is not a voice name`);
  const stem = kokoroStem(name) ?? (/^kokoro/i.test(name) ? name : undefined);
  const removed: string[] = [];
  const drop = async (file: string) => {
    try {
      await rm(join(voicesDir, file));
      removed.push(file);
    } catch (err) {
      if ((err as { code?: string }).code !== 'ENOENT') throw err;
    }
  };
  if (stem) {
    await drop(`${stem}.onnx`);
    if (removed.length === 0) throw new NotInstalledError(`${name} is not installed in ${voicesDir}`);
    const others = (await readdir(voicesDir)).filter((n) => /^kokoro.*\.onnx$/i.test(n));
    if (others.length === 0) for (const bin of (await readdir(voicesDir)).filter((n) => /^voices.*\.bin$/i.test(n))) await drop(bin);
    return removed;
  }
  await drop(`${name}.onnx`);
  await drop(`${name}.onnx.json`);
  if (removed.length === 0) throw new NotInstalledError(`${name} is not installed in ${voicesDir}`);
  return removed;
}
