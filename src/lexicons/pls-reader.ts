// The pool that reads PLS documents off the event loop (pls-worker.ts): one thread, started on the first import.
import { Piscina } from 'piscina';
import { AppError } from '../errors.ts';
import type { LexiconRule } from '../schemas/lexicons.ts';
import { siblingModule } from '../sibling-module.ts';
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
  private readonly piscina: Piscina<string, PlsReadResult>;
  private inFlight = 0;

  constructor(options: { idleTimeoutMs?: number } = {}) {
    this.piscina = new Piscina<string, PlsReadResult>({
      filename: siblingModule(import.meta.url, 'pls-worker'),
      minThreads: 0,
      maxThreads: 1,
      idleTimeout: options.idleTimeoutMs ?? 30_000,
      atomics: 'disabled',
    });
  }

  async read(xml: string): Promise<LexiconRule[]> {
    if (this.inFlight >= MAX_WAITING + 1)
      throw new AppError('busy', 'Too many lexicon imports at once; retry shortly', { 'Retry-After': '2' });
    this.inFlight += 1;
    try {
      const result = await this.piscina.run(xml);
      if (!result.ok) throw new PlsError(result.reason, result.line, result.column);
      return result.rules;
    } finally {
      this.inFlight -= 1;
    }
  }

  close(): Promise<void> {
    return this.piscina.close();
  }
}
