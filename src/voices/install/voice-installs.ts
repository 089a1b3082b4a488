// Installs run by the service itself: from the operator's dashboard page (with progress it can show live) and
// from VOICES_INSTALL at start. One install per voice at a time on this node; the lock files of installer.ts
// keep nodes sharing VOICES_DIR from fetching the same file twice. Each finished install is applied at once
// (the folder is rescanned), so the voice speaks on every door without waiting for the watcher's next look. An
// install can be cancelled (its partial files are deleted), and one whose source goes quiet fails by itself.
import { CatalogError, loadCatalog, type CatalogSources, type CatalogVoice } from './catalog.ts';
import {
  InstallCancelled,
  installVoice,
  isInstalled,
  listInstalled,
  removeVoice,
  type InstallProgress,
  type InstalledVoice,
} from './installer.ts';

export type InstallStatus = 'queued' | 'waiting' | 'downloading' | 'installed' | 'failed' | 'cancelled';

export interface InstallJob {
  name: string;
  status: InstallStatus;
  received: number;
  total: number;
  bytesPerSecond: number;
  secondsLeft: number | null;
  /** Why it failed. */
  error?: string;
  startedAt: string;
  finishedAt?: string;
}

export interface InstallLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface VoiceInstallsOptions {
  voicesDir: string;
  sources: CatalogSources;
  log: InstallLog;
  /** Applies a change of VOICES_DIR (the watcher's rescan). */
  refresh(): Promise<unknown>;
  /** How long a fetched catalogue is reused; default 10 minutes. */
  catalogTtlMs?: number;
  /** VOICES_DOWNLOAD_IDLE_SECONDS: a source that sends (next to) nothing this long fails the install. */
  idleMs?: number;
}

/** Finished jobs are shown this long, then forgotten. */
const KEEP_FINISHED_MS = 10 * 60_000;

export class VoiceInstalls {
  private readonly jobs = new Map<string, InstallJob>();
  private cached: { at: number; voices: CatalogVoice[] } | undefined;
  private readonly controller = new AbortController();

  constructor(private readonly options: VoiceInstallsOptions) {}

  /** The catalogue (cached for a while); throws CatalogError with what to do when it cannot be read. */
  async catalog(): Promise<CatalogVoice[]> {
    const ttl = this.options.catalogTtlMs ?? 10 * 60_000;
    if (this.cached && Date.now() - this.cached.at < ttl) return this.cached.voices;
    const voices = await loadCatalog(this.options.sources, this.controller.signal);
    this.cached = { at: Date.now(), voices };
    return voices;
  }

  /** The next catalogue() reads the catalogue afresh (it changed, or the network came back). */
  forgetCatalog(): void {
    this.cached = undefined;
  }

  installed(): Promise<InstalledVoice[]> {
    return listInstalled(this.options.voicesDir);
  }

  /** Current and recently finished installs, newest first. */
  list(): InstallJob[] {
    const now = Date.now();
    for (const [name, job] of this.jobs) {
      if (job.finishedAt && now - Date.parse(job.finishedAt) > KEEP_FINISHED_MS) this.jobs.delete(name);
    }
    return [...this.jobs.values()].sort((a, b) => b.startedAt.localeCompare(a.startedAt));
  }

  job(name: string): InstallJob | undefined {
    return this.jobs.get(name);
  }

  /**
   * Starts installing `voice` (or returns the install already running for it); the promise on the job settles
   * in the background. Throws CatalogError for a name the catalogue does not have.
   */
  async start(name: string): Promise<{ job: InstallJob; done: Promise<InstallJob> }> {
    const running = this.jobs.get(name);
    if (running && !running.finishedAt) return { job: running, done: this.pending.get(name) ?? Promise.resolve(running) };
    const voice = (await this.catalog()).find((v) => v.name === name);
    if (!voice) throw new CatalogError(`the catalogue has no voice named ${name}`);
    const job: InstallJob = {
      name,
      status: 'queued',
      received: 0,
      total: voice.size,
      bytesPerSecond: 0,
      secondsLeft: null,
      startedAt: new Date().toISOString(),
    };
    this.jobs.set(name, job);
    const stop = new AbortController();
    this.stops.set(name, stop);
    const done = this.run(voice, job, AbortSignal.any([this.controller.signal, stop.signal]));
    this.pending.set(name, done);
    void done.finally(() => {
      this.pending.delete(name);
      this.stops.delete(name);
    });
    return { job, done };
  }

  private readonly pending = new Map<string, Promise<InstallJob>>();
  private readonly stops = new Map<string, AbortController>();

  /**
   * Cancels the install of `name` in progress: its download stops and its partial files are deleted. Resolves with
   * the job once it has stopped; undefined when no install of that name is running.
   */
  async cancel(name: string): Promise<InstallJob | undefined> {
    const stop = this.stops.get(name);
    const done = this.pending.get(name);
    if (!stop || !done) return undefined;
    stop.abort(new InstallCancelled(`the install of ${name} was cancelled`));
    return done;
  }

  private async run(voice: CatalogVoice, job: InstallJob, signal: AbortSignal): Promise<InstallJob> {
    const { log, voicesDir } = this.options;
    let lastLogged = -1;
    const onProgress = (p: InstallProgress) => {
      // "installed" only once the service has applied it (below): a client that sees it can use the voice.
      job.status = p.phase === 'installed' ? 'downloading' : p.phase;
      job.received = p.received;
      job.total = p.total;
      job.bytesPerSecond = Math.round(p.bytesPerSecond);
      job.secondsLeft = p.secondsLeft === null ? null : Math.round(p.secondsLeft);
      const quarter = Math.floor((p.received / Math.max(1, p.total)) * 4);
      if (p.phase === 'downloading' && quarter > lastLogged && quarter < 4) {
        lastLogged = quarter;
        log.info(
          { voice: voice.name, received: p.received, total: p.total },
          `installing ${voice.name}: ${quarter * 25}% of ${Math.round(p.total / 1e6)} MB`,
        );
      }
    };
    try {
      const result = await installVoice(voice, { voicesDir, signal, onProgress, idleMs: this.options.idleMs });
      await this.options.refresh();
      job.status = 'installed';
      job.received = job.total;
      log.info(
        { voice: voice.name, downloaded: result.downloaded },
        `installed ${voice.name}${result.downloaded ? '' : ' (already there)'}`,
      );
    } catch (err) {
      const cancelled = signal.reason instanceof InstallCancelled;
      job.status = cancelled ? 'cancelled' : 'failed';
      job.error = cancelled ? (signal.reason as InstallCancelled).message : err instanceof Error ? err.message : String(err);
      if (cancelled) log.info({ voice: voice.name }, `install of ${voice.name} cancelled; its partial files were deleted`);
      else if (!this.controller.signal.aborted)
        log.error({ voice: voice.name, err: { message: job.error } }, `installing ${voice.name} failed: ${job.error}`);
    }
    job.finishedAt = new Date().toISOString();
    return job;
  }

  /** Uninstalls and applies the change at once; throws NotInstalledError for a voice that is not there. */
  async remove(name: string): Promise<string[]> {
    const files = await removeVoice(this.options.voicesDir, name);
    this.jobs.delete(name);
    await this.options.refresh();
    this.options.log.info({ voice: name, files }, `removed ${name}`);
    return files;
  }

  /**
   * VOICES_INSTALL: installs the named voices that are missing, one after another, logging progress. Never
   * throws: a catalogue that cannot be read or a failed download is logged, and the service keeps serving.
   */
  async installAtStart(names: readonly string[]): Promise<void> {
    if (names.length === 0) return;
    let catalog: CatalogVoice[];
    try {
      catalog = await this.catalog();
    } catch (err) {
      this.options.log.error({ err: { message: (err as Error).message } }, `VOICES_INSTALL: ${(err as Error).message}`);
      return;
    }
    for (const name of names) {
      if (this.controller.signal.aborted) return;
      const voice = catalog.find((v) => v.name === name);
      if (!voice) {
        this.options.log.error({ voice: name }, `VOICES_INSTALL: the catalogue has no voice named ${name}`);
        continue;
      }
      if (await isInstalled(this.options.voicesDir, voice)) continue;
      this.options.log.info({ voice: name }, `VOICES_INSTALL: installing ${name} (${Math.round(voice.size / 1e6)} MB)`);
      await (
        await this.start(name)
      ).done;
    }
  }

  /** Stops downloads in progress (shutdown); what arrived is kept for the next start. */
  close(): void {
    this.controller.abort(new Error('the service is shutting down'));
  }
}
