// Long-form jobs as the API sees them: accept a document (checked, read into chapters and pieces, within the
// account's limits, before anything is synthesized), show a job and its chapters, follow its progress, serve
// its audio, and cancel and delete it.
import { AppError } from '../errors.ts';
import { FORMATS } from '../audio/encoders/index.ts';
import {
  CHAPTER_PAUSE_SECONDS,
  JOB_FINAL_EVENTS,
  type Job,
  type JobChapter,
  type JobSource,
  type JobStatus,
  type JobWarning,
} from '../schemas/jobs.ts';
import type { SpeechFormat } from '../schemas/speech.ts';
import type { SpeechCaller, SpeechService } from '../speech/speech-service.ts';
import type { SharedState } from '../store/shared-state/shared-state.ts';
import { mp3BookSegments, type Segment } from './book.ts';
import { audioSeconds } from './document/audio-estimate.ts';
import type { JobPlan } from './document/plan.ts';
import type { DocumentReader } from './document-reader.ts';
import { chapterPart, type ChapterRow, type JobRow, type JobStore } from './job-store.ts';
import type { JobRunner } from './job-runner.ts';
import { JobOutputs } from './outputs/job-outputs.ts';
import { safeName } from './file-names.ts';

export interface JobLimits {
  maxChars: number;
  maxPerUser: number;
  maxUploadBytes: number;
  /** One synthesis's limit (MAX_TEXT_CHARS): no piece is longer. */
  maxTextChars: number;
  /** Pieces of a book in the queue at once. */
  window: number;
  /** MAX_JOB_CHAPTERS and MAX_JOB_PIECES. */
  maxChapters: number;
  maxPieces: number;
  /** MAX_JOB_AUDIO_SECONDS: audio one job may hold. */
  maxAudioSeconds: number;
  /** MAX_JOB_STORAGE_MB_PER_USER, in bytes. */
  maxStorageBytesPerUser: number;
}

export interface NewJobInput {
  source: JobSource;
  text?: string;
  bytes?: Uint8Array;
  /** The upload's file name, whose stem titles a document that has no title of its own. */
  fileName?: string;
  voiceId?: string;
  speed?: number;
  format?: SpeechFormat;
  lexicons?: string[];
  title?: string;
  author?: string;
  /** The client's Idempotency-Key: a creation sent again with it finds the job the first one made. */
  idempotencyKey?: string;
  /** A job of the caller's this is a new version of: its settings are the defaults, and it goes once this one is done. */
  replaces?: string;
  /** Only these chapters of the document (from 0). */
  chapters?: number[];
}

/** A redo's own voice, speed and lexicons for the chapter (the job's where absent). */
export interface ChapterRedo {
  voiceId?: string;
  speed?: number;
  lexicons?: string[];
}

/** Audio to send: its bytes as stored segments, with what the response says about them. */
export interface JobAudio {
  segments: Segment[];
  length: number;
  contentType: string;
  fileName: string;
}

/** How long an event stream waits for a change before it looks anyway (a change notice can be missed). */
const POLL_MS = 2_000;
/** Changes closer together than this reach an event stream as one (a book stores many pieces a second). */
const COALESCE_MS = 150;
const LIST_LIMIT = 100;
/** How long a creation waits for the queue (Redis) before it answers anyway: the job starts once the queue is back. */
const ENQUEUE_WAIT_MS = 3_000;
const FINAL: ReadonlySet<string> = new Set(JOB_FINAL_EVENTS);

const audioUrl = (id: string): string => `/v1/jobs/${encodeURIComponent(id)}/audio`;
const chapterUrl = (id: string, n: number): string => `/v1/jobs/${encodeURIComponent(id)}/chapters/${n}/audio`;

function chapterJson(job: JobRow, c: ChapterRow): JobChapter {
  const done = c.audio_attempt !== null;
  const samples = c.samples === null ? null : Number(c.samples);
  return {
    index: c.n,
    title: c.title,
    characters: c.characters,
    status: done ? 'done' : c.pieces_done > 0 ? 'running' : 'queued',
    progress: done ? 1 : c.characters === 0 ? 0 : Math.min(0.99, c.chars_done / c.characters),
    start_seconds: job.status === 'done' ? c.start_seconds : null,
    duration_seconds: samples === null ? null : Math.round((samples / FORMATS.pcm.sampleRate) * 1000) / 1000,
    audio_url: done ? chapterUrl(job.id, c.n) : null,
    checks: { passed: c.checks_passed + c.checks_retried, retried: c.checks_retried, failed: c.checks_failed },
    pieces: { total: c.pieces, done: c.pieces_done, rendered: c.pieces_rendered, reused: c.pieces_reused },
  };
}

/** The sum of a count over the chapters. */
const total = (chapters: readonly ChapterRow[], count: (c: ChapterRow) => number): number => chapters.reduce((n, c) => n + count(c), 0);

export function jobJson(job: JobRow, chapters: readonly ChapterRow[]): Job {
  const done = job.status === 'done';
  return {
    id: job.id,
    status: job.status as JobStatus,
    progress: done ? 1 : job.characters === 0 ? 0 : Math.min(0.99, job.chars_done / job.characters),
    characters: job.characters,
    audio_seconds: job.audio_seconds,
    chapters: chapters.map((c) => chapterJson(job, c)),
    title: job.title,
    author: job.author,
    voice_id: job.voice_id,
    speed: job.speed,
    format: job.format as SpeechFormat,
    text_type: job.text_type as JobSource,
    pieces: {
      total: job.pieces,
      done: job.pieces_done,
      rendered: total(chapters, (c) => c.pieces_rendered),
      reused: total(chapters, (c) => c.pieces_reused),
    },
    checks: {
      passed: total(chapters, (c) => c.checks_passed + c.checks_retried),
      retried: total(chapters, (c) => c.checks_retried),
      failed: total(chapters, (c) => c.checks_failed),
    },
    duration_seconds: done ? job.book_seconds : null,
    audio_url: done ? audioUrl(job.id) : null,
    error: job.error,
    created_at: job.created_at,
    started_at: job.started_at,
    finished_at: job.finished_at,
    expires_at: job.expires_at,
  };
}

/** The audio a planned job will hold at `speed`, with the pauses between its chapters, to the tenth of a second. */
function jobAudioSeconds(plan: JobPlan, speed: number): number {
  const seconds = audioSeconds(plan.audio, speed) + Math.max(0, plan.chapters.length - 1) * CHAPTER_PAUSE_SECONDS;
  return Math.ceil(seconds * 10) / 10;
}

/**
 * The plan of only some of a document's chapters, in the document's order. What they will say is estimated as
 * the whole document's share by characters, rounded up, since a plan carries it for the whole only.
 */
function onlyChapters(plan: JobPlan, wanted: readonly number[]): JobPlan {
  const bad = wanted.find((n) => n >= plan.chapters.length);
  if (bad !== undefined)
    throw new AppError('validation', `chapters: the document has ${plan.chapters.length} chapters (from 0); there is no chapter ${bad}`);
  const keep = new Set(wanted);
  const chapters: JobPlan['chapters'] = [];
  const pieces: JobPlan['pieces'] = [];
  for (const [n, c] of plan.chapters.entries()) {
    if (!keep.has(n)) continue;
    const chapter = chapters.length;
    chapters.push({ ...c, firstPiece: pieces.length });
    for (const p of plan.pieces.slice(c.firstPiece, c.firstPiece + c.pieces)) pieces.push({ ...p, chapter });
  }
  const characters = chapters.reduce((sum, c) => sum + c.characters, 0);
  const share = plan.characters === 0 ? 1 : characters / plan.characters;
  const audio = {
    breakSeconds: Math.ceil(plan.audio.breakSeconds * share * 10) / 10,
    expandedChars: Math.ceil(plan.audio.expandedChars * share),
  };
  return { ...plan, characters, audio, chapters, pieces };
}

export class JobService {
  constructor(
    private readonly deps: {
      store: JobStore;
      runner: JobRunner;
      reader: DocumentReader;
      speech: SpeechService;
      sharedState: SharedState;
      limits: JobLimits;
    },
  ) {
    this.outputs = new JobOutputs(deps.store, deps.speech);
  }

  /** A finished job's other downloads: its chapters as a zip, a read-along EPUB. */
  readonly outputs: JobOutputs;

  /** Accepts a job (202): everything that can be refused is refused here, before any synthesis. */
  async create(caller: SpeechCaller, input: NewJobInput): Promise<Job> {
    const { store, runner, reader, speech, limits } = this.deps;
    // A new version of a book speaks as the last one did, unless told otherwise.
    const replaced = input.replaces === undefined ? undefined : await this.owned(caller.userId, input.replaces);
    const format = input.format ?? (replaced?.format as SpeechFormat | undefined) ?? 'mp3';
    const idempotencyKey = input.idempotencyKey ?? null;
    if (idempotencyKey !== null) {
      const made = await store.byIdempotencyKey(caller.userId, idempotencyKey);
      if (made) return jobJson(made, await store.chapters(made.id));
    }
    // Cheap refusals first: the account's open jobs, then the voice, speed, format and lexicons.
    await this.roomForAnother(caller.userId);
    const stored = await store.storedBytes(caller.userId);
    if (stored >= limits.maxStorageBytesPerUser) {
      const mib = (n: number): string => `${Math.round(n / 1048576)} MiB`;
      throw new AppError(
        'storage_quota_exceeded',
        `This account's jobs hold ${mib(stored)}; the limit is ${mib(limits.maxStorageBytesPerUser)} (MAX_JOB_STORAGE_MB_PER_USER): delete finished jobs, or wait until they expire (JOB_RETENTION_DAYS)`,
      );
    }
    const lexicons = input.lexicons ?? (replaced?.lexicons ? (JSON.parse(replaced.lexicons) as string[]) : undefined);
    const { voiceId, speed, lexicon } = await speech.prepareJob(caller, {
      voiceId: input.voiceId ?? replaced?.voice_id,
      speed: input.speed ?? replaced?.speed,
      format,
      lexicons,
    });
    const stem = input.fileName?.replace(/\.[^.]*$/, '').trim();
    const whole = await reader.read(
      {
        source: input.source,
        ...(input.text !== undefined ? { text: input.text } : {}),
        ...(input.bytes !== undefined ? { bytes: input.bytes } : {}),
        ...(input.title !== undefined && input.title.trim() !== '' ? { title: input.title.trim() } : {}),
        ...(input.author !== undefined && input.author.trim() !== '' ? { author: input.author.trim() } : {}),
        fallbackTitle: stem && stem !== '' ? stem.slice(0, 200) : 'Untitled',
        maxUnpackedBytes: limits.maxUploadBytes,
        maxChars: limits.maxChars,
        maxPieceChars: limits.maxTextChars,
        maxChapters: limits.maxChapters,
        maxPieces: limits.maxPieces,
        ...(lexicon ? { lexicon } : {}),
      },
      caller.userId,
    );
    const plan = input.chapters === undefined ? whole : onlyChapters(whole, input.chapters);
    const audioSeconds = jobAudioSeconds(plan, speed);
    if (audioSeconds > limits.maxAudioSeconds) {
      throw new AppError(
        'job_too_large',
        `the job would hold about ${Math.round(audioSeconds)} s of audio (its breaks' silence and its aliases as said included); the limit is ${limits.maxAudioSeconds} s (MAX_JOB_AUDIO_SECONDS)`,
      );
    }
    const job = await store
      .create({
        userId: caller.userId,
        keyId: caller.keyId,
        voiceId,
        speed,
        format,
        lexicons: lexicons ?? null,
        source: input.source,
        plan,
        audioSeconds,
        idempotencyKey,
        window: limits.window,
        maxJobsPerUser: limits.maxPerUser,
        replaces: replaced?.id ?? null,
      })
      .catch(async (err: unknown) => {
        // Two attempts with the same key at once: the one that lost the insert answers with the winner's job.
        const made = idempotencyKey === null ? undefined : await store.byIdempotencyKey(caller.userId, idempotencyKey);
        if (made) return null;
        throw err;
      });
    if (job === null) return this.create(caller, input);
    // The job is saved: it is accepted whether or not the queue answers now (the runner queues it once it does).
    await runner.enqueueWithin(job, ENQUEUE_WAIT_MS);
    return jobJson(job, await store.chapters(job.id));
  }

  async list(userId: string): Promise<Job[]> {
    const jobs = await this.deps.store.list(userId, LIST_LIMIT);
    const chapters = await this.deps.store.chaptersOf(jobs.map((j) => j.id));
    return jobs.map((j) => jobJson(j, chapters.get(j.id) ?? []));
  }

  private async owned(userId: string, id: string): Promise<JobRow> {
    const job = await this.deps.store.owned(userId, id);
    if (!job) throw new AppError('job_not_found', `No job "${id.slice(0, 100)}"`);
    return job;
  }

  async get(userId: string, id: string): Promise<Job> {
    const job = await this.owned(userId, id);
    return jobJson(job, await this.deps.store.chapters(id));
  }

  /** Cancels the job's work on every node and deletes it with its audio. */
  async delete(userId: string, id: string): Promise<void> {
    const job = await this.owned(userId, id);
    await this.deps.runner.cancel(job);
    await this.deps.store.delete(id);
    await this.deps.runner.changed(id);
  }

  /** A new job, or a chapter redone, needs the account under MAX_JOBS_PER_USER jobs queued or running. */
  private async roomForAnother(userId: string): Promise<void> {
    const { store, limits } = this.deps;
    const open = (await store.list(userId, LIST_LIMIT)).filter((j) => j.status === 'queued' || j.status === 'running').length;
    if (open >= limits.maxPerUser) {
      throw new AppError(
        'too_many_jobs',
        `This account has ${limits.maxPerUser} jobs queued or running (MAX_JOBS_PER_USER); retry when one has finished`,
        { 'Retry-After': '60' },
      );
    }
  }

  /**
   * Renders chapter `n` of a done job again (with another voice, speed or lexicons where given) and then the
   * book's files: the other chapters stay as they are, and pieces whose content was stored before are reused.
   */
  async redoChapter(caller: SpeechCaller, id: string, n: number, redo: ChapterRedo): Promise<Job> {
    const { store, runner, speech } = this.deps;
    const job = await this.owned(caller.userId, id);
    const chapter = await store.chapter(id, n);
    if (!chapter) throw new AppError('not_found', `The job has no chapter ${n} (it has ${job.chapters}, from 0)`);
    if (job.status !== 'done') throw new AppError('job_busy', `The job is ${job.status}; a chapter is redone once the book is done`);
    await this.roomForAnother(caller.userId);
    // Checked as a new job's settings are: the voice is the caller's to use, the speed in range, the lexicons theirs.
    const checked = await speech.prepareJob(caller, {
      voiceId: redo.voiceId ?? chapter.voice_id ?? job.voice_id,
      speed: redo.speed ?? chapter.speed ?? job.speed,
      format: job.format as SpeechFormat,
      lexicons: redo.lexicons,
    });
    const reopened = await store.reopenChapter(id, n, {
      ...(redo.voiceId !== undefined ? { voiceId: checked.voiceId } : {}),
      ...(redo.speed !== undefined ? { speed: checked.speed } : {}),
      ...(redo.lexicons !== undefined ? { lexicons: redo.lexicons } : {}),
    });
    if (!reopened) throw new AppError('job_busy', 'The job is already being rendered again');
    await runner.changed(id);
    await runner.enqueueChapter(id, reopened);
    return this.get(caller.userId, id);
  }

  /** Deletes the jobs past JOB_RETENTION_DAYS and queues what unfinished ones need, now (it also runs every minute). */
  sweep(): Promise<void> {
    return this.deps.runner.sweep();
  }

  /** The whole book, once done. */
  async bookAudio(userId: string, id: string): Promise<JobAudio> {
    const { store } = this.deps;
    const job = await this.owned(userId, id);
    if (job.status !== 'done' || job.book_attempt === null)
      throw new AppError('audio_not_ready', `The book is not rendered yet (the job is ${job.status})`);
    const format = job.format as SpeechFormat;
    const info = FORMATS[format];
    const fileName = `${safeName(job.title, 'book')}.${info.extension}`;
    const headLength = await store.partLength(id, 'book', job.book_attempt);
    const head: Segment = { part: 'book', attempt: job.book_attempt, from: 0, to: headLength };
    let segments = [head];
    if (format === 'mp3') {
      const gapBytes = await store.partLength(id, 'gap', job.book_attempt);
      segments = [head, ...mp3BookSegments(await store.chapters(id), gapBytes, job.book_attempt)];
    }
    return { segments, length: segments.reduce((n, s) => n + s.to - s.from, 0), contentType: info.contentType, fileName };
  }

  /** One chapter, once it is encoded (while the rest of the book still renders). */
  async chapterAudio(userId: string, id: string, n: number): Promise<JobAudio> {
    const job = await this.owned(userId, id);
    const chapter = await this.deps.store.chapter(id, n);
    if (!chapter) throw new AppError('not_found', `The job has no chapter ${n} (it has ${job.chapters}, from 0)`);
    if (chapter.audio_attempt === null) throw new AppError('audio_not_ready', `Chapter ${n} is not rendered yet`);
    const info = FORMATS[job.format as SpeechFormat];
    const length = Number(chapter.audio_bytes ?? 0);
    const fileName = `${safeName(job.title, 'book')} - ${String(n + 1).padStart(2, '0')} ${safeName(chapter.title, 'chapter')}.${info.extension}`;
    return {
      segments: [{ part: chapterPart(n), attempt: chapter.audio_attempt, from: 0, to: length }],
      length,
      contentType: info.contentType,
      fileName,
    };
  }

  /** Bytes [start, end] (inclusive) of a job's audio. */
  async *read(id: string, audio: JobAudio, start: number, end: number): AsyncGenerator<Uint8Array> {
    let at = 0;
    for (const s of audio.segments) {
      const size = s.to - s.from;
      const from = Math.max(start, at);
      const to = Math.min(end + 1, at + size);
      if (to > from) yield* this.deps.store.readAudio(id, s.part, s.attempt, s.from + (from - at), s.from + (to - at));
      at += size;
      if (at > end) return;
    }
  }

  /**
   * The job as it changes, for an event stream: its state at once, then each change, until it is done, has
   * failed or is gone (cancelled). Changes arrive as notices from any node; a missed one is caught by polling.
   */
  async *watch(
    userId: string,
    id: string,
    signal: AbortSignal,
  ): AsyncGenerator<{ event: string | null; data: Job | JobWarning | { id: string; status: 'cancelled' } }> {
    await this.owned(userId, id);
    let wake: (() => void) | null = null;
    let pending = false;
    const unsubscribe = this.deps.sharedState.subscribe((event) => {
      if (event.type === 'resync' || (event.type === 'job-changed' && event.jobId === id)) {
        pending = true;
        wake?.();
      }
    });
    const onAbort = (): void => wake?.();
    signal.addEventListener('abort', onAbort);
    try {
      let last = '';
      // The chapters as last read: a change re-reads only those from the first one not encoded yet up to where
      // the queue has reached, so a change costs the chapters under way, not the whole book.
      let chapters: ChapterRow[] | null = null;
      // Failed checks already told, per chapter: a warning goes out when a chapter has more.
      const warned = new Map<number, number>();
      while (!signal.aborted) {
        pending = false;
        const job = await this.deps.store.owned(userId, id);
        if (!job) {
          yield { event: 'cancelled', data: { id, status: 'cancelled' } };
          return;
        }
        if (chapters === null || FINAL.has(job.status)) {
          chapters = await this.deps.store.chapters(id);
        } else {
          const from = chapters.findIndex((c) => c.audio_attempt === null);
          if (from >= 0) for (const c of await this.deps.store.activeChapters(job, from)) chapters[c.n] = c;
        }
        const data = jobJson(job, chapters);
        for (const [i, c] of chapters.entries()) {
          // A redone chapter counts from 0 again.
          if (c.checks_failed < (warned.get(c.n) ?? 0)) warned.set(c.n, c.checks_failed);
          if (c.checks_failed <= (warned.get(c.n) ?? 0)) continue;
          warned.set(c.n, c.checks_failed);
          const failed = await this.deps.store.failedPieces(id, c.n);
          yield { event: 'warning', data: { id, chapter: c.n, title: c.title, checks: data.chapters[i].checks, failed_pieces: failed } };
        }
        const text = JSON.stringify(data);
        const final = FINAL.has(data.status);
        if (text !== last || final) {
          last = text;
          yield { event: final ? data.status : null, data };
        }
        if (final) return;
        if (!pending) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, POLL_MS);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = null;
        }
        await new Promise((r) => setTimeout(r, COALESCE_MS));
      }
    } finally {
      unsubscribe();
      signal.removeEventListener('abort', onAbort);
    }
  }
}
