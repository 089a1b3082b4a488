// VOICES_DIR while the service runs: a voice added (by `voxsmith voices add`, the dashboard, another node sharing
// the folder, or a plain copy) is served within seconds on every door, and a removed one is gone, without a
// restart. Changes are seen through fs.watch where the file system reports them and by a light poll of the
// folder's listing (names, sizes, times) where it does not (network file systems, another node's writes).
import { watch, type FSWatcher } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { NeuralModels } from '../synth/neural-models.ts';
import type { VoiceLibrary } from './library.ts';
import { scanVoicesDir, type CatalogProblem, type NeuralCatalog } from './neural-catalog.ts';

export interface WatchLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface VoicesDirWatchOptions {
  dir: string;
  library: VoiceLibrary;
  synthesizer: { setNeuralModels(models: NeuralModels): void };
  log: WatchLog;
  /** What the start-up scan found (already in the library and the workers). */
  initial: NeuralCatalog;
  /** How often the folder's listing is compared; default 2 000 ms. */
  pollMs?: number;
  /** A voice's model was replaced or removed: answers cached from it must go. */
  onModelsReplaced?: () => void;
}

/** The files a scan reads, with their sizes and times: when this changes, the folder is scanned again. */
async function signature(dir: string): Promise<string> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => /\.(onnx|json|bin)$/i.test(n)).sort();
  } catch {
    return 'missing';
  }
  const parts: string[] = [];
  for (const name of names) {
    try {
      const st = await stat(join(dir, name));
      parts.push(`${name}:${st.size}:${Math.round(st.mtimeMs)}`);
    } catch {
      // Removed between the listing and now: the next poll sees it gone.
    }
  }
  return parts.join('|');
}

const problemKey = (p: CatalogProblem): string => `${p.path}\u0000${p.reason}`;

export class VoicesDirWatch {
  private current: NeuralCatalog;
  private lastSignature: string | undefined;
  private reported: Set<string>;
  private scanning: Promise<NeuralCatalog> | undefined;
  private again = false;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: VoicesDirWatchOptions) {
    this.current = options.initial;
    this.reported = new Set(options.initial.problems.map(problemKey));
  }

  catalog(): NeuralCatalog {
    return this.current;
  }

  start(): void {
    void signature(this.options.dir).then((s) => (this.lastSignature ??= s));
    this.watchFolder();
    this.timer = setInterval(() => void this.poll(), this.options.pollMs ?? 2000);
    this.timer.unref();
  }

  private watchFolder(): void {
    if (this.watcher || this.closed) return;
    try {
      this.watcher = watch(this.options.dir, { persistent: false }, () => this.soon());
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch {
      // No folder yet (or no fs.watch here): the poll notices it appearing.
    }
  }

  /** Several events come for one copy or rename; one scan after they settle. */
  private soon(): void {
    if (this.closed) return;
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => void this.poll(), 150);
    this.debounce.unref();
  }

  private async poll(): Promise<void> {
    if (this.closed) return;
    try {
      this.watchFolder();
      const now = await signature(this.options.dir);
      if (now === this.lastSignature) return;
      this.lastSignature = now;
      await this.refresh();
    } catch (err) {
      // Never fatal: the next look tries again.
      this.options.log.warn(
        { voicesDir: this.options.dir, err: { message: err instanceof Error ? err.message : String(err) } },
        'VOICES_DIR: rescanning failed',
      );
    }
  }

  /**
   * Scans the folder now and applies what changed (one scan at a time; a request during a scan runs one more
   * after it). Resolves with the catalog as it then is.
   */
  refresh(): Promise<NeuralCatalog> {
    if (this.scanning) {
      this.again = true;
      return this.scanning;
    }
    const run = async (): Promise<NeuralCatalog> => {
      try {
        do {
          this.again = false;
          this.apply(await scanVoicesDir(this.options.dir));
        } while (this.again && !this.closed);
        return this.current;
      } finally {
        this.scanning = undefined;
      }
    };
    this.scanning = run();
    return this.scanning;
  }

  private apply(next: NeuralCatalog): void {
    if (this.closed) return;
    const { library, synthesizer, log, dir } = this.options;
    const before = new Set(this.current.voices.map((v) => v.id));
    const after = new Set(next.voices.map((v) => v.id));
    const added = next.voices.filter((v) => !before.has(v.id));
    const removed = this.current.voices.filter((v) => !after.has(v.id));
    const revised = next.voices.some((v) => {
      const old = this.current.voices.find((o) => o.id === v.id);
      return old !== undefined && JSON.stringify(old) !== JSON.stringify(v);
    });
    const modelsChanged = JSON.stringify(next.models) !== JSON.stringify(this.current.models);
    this.current = next;
    if (added.length > 0 || removed.length > 0 || revised || modelsChanged) {
      // The workers first: a request for a new voice must find its model when the library lets it through.
      synthesizer.setNeuralModels(next.models);
      library.setNaturalVoices(next.voices);
    }
    if (removed.length > 0 || revised || (modelsChanged && added.length === 0)) this.options.onModelsReplaced?.();
    if (added.length > 0) {
      log.info(
        { voicesDir: dir, added: added.map((v) => v.id) },
        `VOICES_DIR: ${added.length} natural voice${added.length === 1 ? '' : 's'} added (${next.voices.length} loaded)`,
      );
    }
    if (removed.length > 0) {
      log.info(
        { voicesDir: dir, removed: removed.map((v) => v.id) },
        `VOICES_DIR: ${removed.length} natural voice${removed.length === 1 ? '' : 's'} removed (${next.voices.length} loaded)`,
      );
    }
    const keys = new Set(next.problems.map(problemKey));
    for (const p of next.problems) {
      if (!this.reported.has(problemKey(p))) log.warn({ path: p.path, reason: p.reason }, `VOICES_DIR: skipped ${p.path}: ${p.reason}`);
    }
    this.reported = keys;
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    clearTimeout(this.debounce);
    this.watcher?.close();
    this.watcher = undefined;
  }
}
