// The pool that reads PLS documents off the event loop (pls-worker.ts): one thread, started on the first import.
import { OneThreadPool } from '../one-thread-pool.ts';
import type { LexiconRule } from '../schemas/lexicons.ts';
import { PlsError } from './pls.ts';

export type PlsReadResult = { ok: true; rules: LexiconRule[] } | { ok: false; reason: string; line: number; column: number };

/** Reads a PLS document into rules; throws PlsError where it is not well-formed or not PLS. */
export interface PlsReader {
  read(xml: string): Promise<LexiconRule[]>;
}

/**
 * Imports that may wait for the thread beyond the one it reads: each holds its document (up to 1 MiB) in memory,
 * so past this an import is turned away with 503 rather than queued.
 */
const MAX_WAITING = 8;

export class ThreadPlsReader implements PlsReader {
  private readonly pool: OneThreadPool<string, PlsReadResult>;

  constructor(options: { idleTimeoutMs?: number } = {}) {
    this.pool = new OneThreadPool({
      base: import.meta.url,
      worker: 'pls-worker',
      idleTimeoutMs: options.idleTimeoutMs ?? 30_000,
      maxWaiting: MAX_WAITING,
      busyMessage: 'Too many lexicon imports at once; retry shortly',
      retryAfterSeconds: 2,
    });
  }

  async read(xml: string): Promise<LexiconRule[]> {
    const result = await this.pool.runOrRefuse(xml);
    if (!result.ok) throw new PlsError(result.reason, result.line, result.column);
    return result.rules;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
