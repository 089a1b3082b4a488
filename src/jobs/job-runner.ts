// Does a job's work as the queue hands it out, on whichever node takes it: render a piece through the speech
// service and store it, encode a chapter once all its pieces are stored, assemble the book once every chapter
// is. Each step reads what to do from the database and does nothing the database says is done, so a task run
// twice (after a crash, on two nodes) stores its result once, and a restarted node picks up every unfinished
// job where it stood.
import { hostname } from 'node:os';
import { AppError } from '../errors.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { CHAPTER_PAUSE_SECONDS } from '../schemas/jobs.ts';
import { STREAM_SAMPLE_RATE, type SpeechFormat } from '../schemas/speech.ts';
import type { SpeechCaller, SpeechService } from '../speech/speech-service.ts';
import type { SharedState } from '../store/shared-state/shared-state.ts';
import type { AudioEncoder, PcmSource } from './audio-encoder.ts';
import { layoutBook, mp3BookSegments } from './book.ts';
import { buildChapterTag } from './id3-chapters.ts';
import {
  chapterPart,
  deflatePcm,
  newAttempt,
  type ChapterRow,
  type CheckState,
  type JobRow,
  type JobStore,
  type PieceOutcome,
  type StoredPcm,
} from './job-store.ts';
import { judgePiece, measurePiece, SpeakingRates } from './piece-check.ts';
import { PartWriter } from './part-writer.ts';
import type { PieceWord } from './piece-words.ts';
import type { JobTask, TaskQueue } from './queue/task-queue.ts';
import { buildInfoFrame } from '../audio/encoders/mp3-info-tag.ts';

export interface JobRunnerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface JobRunnerDeps {
  store: JobStore;
  queue: TaskQueue;
  speech: SpeechService;
  encoder: AudioEncoder;
  sharedState: SharedState;
  metrics: Pick<Metrics, 'observeJobPiece'>;
  log: JobRunnerLog;
  retentionDays: number;
  /** Pieces of one book in the queue at once. */
  window: number;
  /** How often unfinished jobs are looked for (tasks lost with a queue, a missed step), and expired ones deleted. */
  sweepMs?: number;
  /** A name for this node in the pieces it stores. */
  nodeId?: string;
}

/** Renders of a piece whose check fails before it is kept as it is and reported. */
export const PIECE_TRIES = 3;

/** What a piece is rendered from. */
type PieceInput = Parameters<SpeechService['renderPiece']>[1] & { voiceId: string; speed: number };

/** A piece's audio as got (rendered or reused), with how, and its usage to record once stored. */
interface GotPiece {
  pcm: StoredPcm;
  samples: number;
  /** Its word timings, kept with it for a read-along book. */
  words: readonly PieceWord[];
  outcome: PieceOutcome;
  bill(): Promise<void>;
}

const ACTIVE = new Set(['queued', 'running']);
const isActive = (job: JobRow | undefined): job is JobRow => job !== undefined && ACTIVE.has(job.status);

/** A failure the job cannot get past by trying again (a deleted voice, a piece the limits refuse). */
function isPermanent(err: unknown): err is AppError {
  return err instanceof AppError && err.status < 500 && err.code !== 'concurrency_limited' && err.code !== 'rate_limited';
}

/**
 * What a cancelled job's work on this node is aborted with. It ends that work quietly: the job is being deleted,
 * and marking it failed first would end its event stream with "failed" instead of "cancelled".
 */
class JobCancelled extends AppError {
  constructor() {
    super('job_not_found', 'the job was cancelled');
  }
}

export class JobRunner {
  /** Work this node has under way, per job, so a cancel reaches it. */
  private readonly inFlight = new Map<string, Set<AbortController>>();
  private readonly nodeId: string;
  /** Each voice's speaking rate, measured on the pieces that passed: what a piece's length is judged by. */
  private readonly rates = new SpeakingRates();
  private sweepTimer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private closed = false;
  private sweeping = false;

  constructor(private readonly deps: JobRunnerDeps) {
    this.nodeId = deps.nodeId ?? `${hostname()}:${process.pid}`;
  }

  /** Starts taking tasks, and queues again the work of every unfinished job (this node may have been restarted). */
  async start(): Promise<void> {
    // The app may close before the database answered and the runner was due to start.
    if (this.closed) return;
    const { queue, sharedState } = this.deps;
    queue.start(
      (task, signal) => this.handle(task, signal),
      (task, error) => void this.failJob(task.jobId, `${task.kind} ${'n' in task ? task.n : ''} failed: ${error.message}`),
    );
    this.unsubscribe = sharedState.subscribe((event) => {
      if (event.type === 'job-changed' && this.inFlight.has(event.jobId)) void this.abortIfGone(event.jobId);
    });
    await this.sweep();
    const every = this.deps.sweepMs ?? 60_000;
    this.sweepTimer = setInterval(() => void this.sweep(), every);
    this.sweepTimer.unref();
  }

  /** Queues the first pieces of a job just created. */
  async enqueue(job: JobRow): Promise<void> {
    const tasks: JobTask[] = [];
    for (let n = 0; n < job.pieces_queued; n++) tasks.push({ kind: 'piece', jobId: job.id, n });
    await this.deps.queue.add(tasks);
  }

  /** Queues every piece of a chapter opened again (a redo); the sweep queues them again if they are lost. */
  async enqueueChapter(jobId: string, chapter: Pick<ChapterRow, 'first_piece' | 'pieces'>): Promise<void> {
    const tasks: JobTask[] = [];
    for (let n = chapter.first_piece; n < chapter.first_piece + chapter.pieces; n++) tasks.push({ kind: 'piece', jobId, n });
    await this.deps.queue.add(tasks);
  }

  /**
   * Queues a job just created, waiting at most `ms` for the queue: with Redis down its commands wait for the
   * reconnection, and the job (saved already) must not hold its creator's request meanwhile. What is still
   * pending then goes out once Redis answers, and the sweep queues whatever an outage lost.
   */
  async enqueueWithin(job: JobRow, ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const queued = this.enqueue(job).then(
      () => true,
      (err: unknown) => {
        this.deps.log.warn({ err, jobId: job.id }, 'could not queue the job; the sweep queues it once the queue answers');
        return true;
      },
    );
    const waited = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    try {
      if (!(await Promise.race([queued, waited])))
        this.deps.log.warn({ jobId: job.id }, `the job queue did not answer within ${ms} ms; the job starts once it does`);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops this node's work on a job and drops its waiting tasks (the job is being deleted). */
  async cancel(job: JobRow): Promise<void> {
    for (const abort of this.inFlight.get(job.id) ?? []) abort.abort(new JobCancelled());
    const tasks: JobTask[] = [];
    for (let n = job.pieces_done; n < job.pieces_queued; n++) tasks.push({ kind: 'piece', jobId: job.id, n });
    for (let n = 0; n < job.chapters; n++) tasks.push({ kind: 'chapter', jobId: job.id, n });
    tasks.push({ kind: 'book', jobId: job.id });
    await this.deps.queue.drop(job.id, tasks);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.unsubscribe?.();
    await this.deps.queue.close();
  }

  /** Tells every node (and every open event stream) that the job changed. */
  changed(jobId: string): Promise<void> {
    return this.deps.sharedState.publish({ type: 'job-changed', jobId });
  }

  private async abortIfGone(jobId: string): Promise<void> {
    const job = await this.deps.store.job(jobId).catch(() => undefined);
    if (isActive(job)) return;
    for (const abort of this.inFlight.get(jobId) ?? []) abort.abort(new JobCancelled());
  }

  /** Runs `work` with a signal that aborts when the queue closes or the job is cancelled. */
  private async tracked<T>(jobId: string, queueSignal: AbortSignal, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const abort = new AbortController();
    const onQueueAbort = (): void => abort.abort(queueSignal.reason);
    queueSignal.addEventListener('abort', onQueueAbort, { once: true });
    let set = this.inFlight.get(jobId);
    if (!set) this.inFlight.set(jobId, (set = new Set()));
    set.add(abort);
    try {
      return await work(abort.signal);
    } catch (err) {
      // Whatever the work failed with once it was cancelled (an engine's own abort error, a closed stream), it was the cancel.
      if (abort.signal.reason instanceof JobCancelled) throw abort.signal.reason;
      throw err;
    } finally {
      queueSignal.removeEventListener('abort', onQueueAbort);
      set.delete(abort);
      if (set.size === 0) this.inFlight.delete(jobId);
    }
  }

  private async handle(task: JobTask, signal: AbortSignal): Promise<void> {
    try {
      if (task.kind === 'piece') return await this.renderPiece(task.jobId, task.n, signal);
      if (task.kind === 'chapter') return await this.encodeChapter(task.jobId, task.n, signal);
      return await this.assembleBook(task.jobId, signal);
    } catch (err) {
      if (err instanceof JobCancelled) return;
      throw err;
    }
  }

  private async renderPiece(jobId: string, n: number, queueSignal: AbortSignal): Promise<void> {
    const { store, queue, metrics } = this.deps;
    const job = await store.job(jobId);
    if (!isActive(job)) return;
    const piece = await store.piece(jobId, n);
    if (!piece) return;
    if (!piece.stored) {
      if (job.status === 'queued' && (await store.markRunning(jobId))) await this.changed(jobId);
      const caller: SpeechCaller = { userId: job.user_id, keyId: job.key_id === '' ? null : job.key_id };
      // A redone chapter speaks with its own voice, speed and lexicons.
      const chapter = await store.chapter(jobId, piece.chapter);
      const lexicons = chapter?.lexicons ?? job.lexicons;
      const input = {
        text: piece.text,
        textType: piece.ssml ? ('ssml' as const) : ('text' as const),
        voiceId: chapter?.voice_id ?? job.voice_id,
        speed: chapter?.speed ?? job.speed,
        ...(lexicons ? { lexicons: JSON.parse(lexicons) as string[] } : {}),
        ...(piece.pauseBefore ? { pauseBefore: piece.pauseBefore } : {}),
      };
      let got: GotPiece;
      try {
        got = await this.tracked(jobId, queueSignal, (signal) => this.getPiece(caller, input, piece, signal));
      } catch (err) {
        if (queueSignal.aborted || err instanceof JobCancelled) throw err;
        if (!isActive(await store.job(jobId))) return;
        metrics.observeJobPiece('failed');
        if (isPermanent(err)) return this.failJob(jobId, `piece ${n} could not be spoken: ${err.message}`);
        throw err;
      }
      const result = await store.storePiece(jobId, n, got.pcm, got.samples, this.nodeId, got.words, got.outcome);
      if (result.stored) {
        await got.bill();
        if (got.outcome.check !== 'failed' && !got.outcome.reused)
          await store.keepPiece(job.user_id, got.outcome.contentKey, got.pcm, got.samples, got.words);
        if (got.outcome.check === 'failed')
          this.deps.log.warn(
            { jobId, piece: n, chapter: piece.chapter, problem: got.outcome.problem },
            'a piece failed its check on every try',
          );
        metrics.observeJobPiece('stored');
        await this.changed(jobId);
        if (result.chapterComplete) await queue.add([{ kind: 'chapter', jobId, n: result.chapter }]);
      } else {
        metrics.observeJobPiece('duplicate');
      }
    }
    const next = await store.advanceWindow(jobId);
    if (next !== null) await queue.add([{ kind: 'piece', jobId, n: next }]);
  }

  /**
   * A piece's audio: the account's stored copy of the same content when there is one, else rendered and
   * checked, and rendered again (up to PIECE_TRIES in all) while its check fails. A piece that fails every try
   * is kept as its last try sounded and reported, so one bad sentence does not stop a book.
   */
  private async getPiece(
    caller: SpeechCaller,
    input: PieceInput,
    piece: { n: number; characters: number },
    signal: AbortSignal,
  ): Promise<GotPiece> {
    const { store, speech } = this.deps;
    const contentKey = await speech.pieceKey(caller, input);
    const kept = await store.storedPiece(caller.userId, contentKey);
    if (kept) return { ...kept, outcome: { contentKey, check: 'passed', problem: null, reused: true }, bill: async () => undefined };
    const rateKey = input.voiceId;
    let problem: string | null = null;
    for (let tries = 1; ; tries++) {
      const rendered = await speech.renderPiece(caller, input, signal);
      const measure = measurePiece(rendered.pcm);
      problem = judgePiece(measure, {
        characters: rendered.characters,
        pauseSeconds: rendered.pauseSeconds,
        charsPerSecond: this.rates.charsPerSecond(rateKey, input.speed),
      });
      if (problem === null) this.rates.observe(rateKey, input.speed, rendered.characters, measure.voicedSeconds);
      if (problem === null || tries >= PIECE_TRIES) {
        const check: CheckState = problem !== null ? 'failed' : tries > 1 ? 'retried' : 'passed';
        return {
          pcm: await deflatePcm(rendered.pcm),
          samples: rendered.samples,
          words: rendered.words,
          outcome: { contentKey, check, problem, reused: false },
          bill: rendered.bill,
        };
      }
      this.deps.log.warn({ piece: piece.n, try: tries, problem }, 'a piece failed its check; rendering it again');
    }
  }

  private async encodeChapter(jobId: string, n: number, queueSignal: AbortSignal): Promise<void> {
    const { store, encoder, queue } = this.deps;
    const job = await store.job(jobId);
    if (!isActive(job)) return;
    const chapter = await store.chapter(jobId, n);
    if (!chapter || chapter.pieces_done < chapter.pieces) return;
    if (chapter.audio_attempt === null) {
      const format = job.format as SpeechFormat;
      const writer = new PartWriter(store, jobId, chapterPart(n), newAttempt());
      const committed = await this.tracked(jobId, queueSignal, async (signal) => {
        const result = await encoder.encode(format, this.pcmOf(jobId, [chapter]), writer.write, signal);
        const file = await writer.finish(result);
        return store.commitChapter(jobId, n, writer.attempt, {
          bytes: file.bytes,
          head: file.head,
          samples: result.samples,
          mp3Frames: result.mp3Frames,
        });
      }).catch(async (err: unknown) => {
        await store.deleteAudioAttempt(jobId, writer.part, writer.attempt).catch(() => undefined);
        throw err;
      });
      if (!committed) {
        await store.deleteAudioAttempt(jobId, writer.part, writer.attempt);
        return;
      }
      // The whole MP3 book is the chapters' own frames, so their PCM is no longer needed.
      if (format === 'mp3') await store.dropPcm(jobId, chapter);
      await this.changed(jobId);
    }
    const now = await store.job(jobId);
    if (isActive(now) && now.chapters_done >= now.chapters) await queue.add([{ kind: 'book', jobId }]);
  }

  /** The PCM of chapters in order, with the pause between chapters. */
  private async *pcmOf(jobId: string, chapters: readonly ChapterRow[]): PcmSource {
    const gap = Math.round(CHAPTER_PAUSE_SECONDS * STREAM_SAMPLE_RATE);
    for (const [i, chapter] of chapters.entries()) {
      if (i > 0) yield { silence: gap };
      for await (const pcm of this.deps.store.chapterPcm(jobId, chapter)) yield { pcm };
    }
  }

  private async assembleBook(jobId: string, queueSignal: AbortSignal): Promise<void> {
    const { store, encoder } = this.deps;
    const job = await store.job(jobId);
    if (!isActive(job)) return;
    const chapters = await store.chapters(jobId);
    if (chapters.some((c) => c.audio_attempt === null)) return;
    const format = job.format as SpeechFormat;
    const attempt = newAttempt();
    const written: string[] = [];
    try {
      const book = await this.tracked(jobId, queueSignal, async (signal) => {
        if (format !== 'mp3') {
          // One continuous stream of the whole book, encoded from the pieces' PCM.
          const writer = new PartWriter(store, jobId, 'book', attempt);
          written.push('book');
          const result = await encoder.encode(format, this.pcmOf(jobId, chapters), writer.write, signal);
          const file = await writer.finish(result);
          const layout = layoutBook(format, chapters, null);
          return { bytes: file.bytes, ...layout };
        }
        // MP3: the chapters' own frames with encoded silence between them, under one ID3 tag with the chapters.
        const gap = new PartWriter(store, jobId, 'gap', attempt);
        written.push('gap');
        async function* silence(): PcmSource {
          yield { silence: Math.round(CHAPTER_PAUSE_SECONDS * STREAM_SAMPLE_RATE) };
        }
        const gapResult = await encoder.encode('mp3', silence(), gap.write, signal);
        const gapFile = await gap.finish(gapResult, false);
        const layout = layoutBook('mp3', chapters, { mp3Frames: gapResult.mp3Frames ?? 0 });
        const first = await firstBytes(
          store.readAudio(
            jobId,
            chapterPart(0),
            chapters[0].audio_attempt as string,
            chapters[0].audio_head ?? 0,
            (chapters[0].audio_head ?? 0) + 4,
          ),
        );
        const frames = layout.mp3Frames;
        const audioBytes = mp3BookSegments(chapters, gapFile.bytes).reduce((sum, s) => sum + (s.to - s.from), 0);
        const info = buildInfoFrame(first, { frames, padding: layout.mp3Padding, bytes: 0 });
        const infoFrame = buildInfoFrame(first, { frames, padding: layout.mp3Padding, bytes: info.length + audioBytes });
        const tag = buildChapterTag({
          title: job.title,
          author: job.author,
          chapters: chapters.map((c, i) => ({
            title: c.title,
            startMs: layout.starts[i] * 1000,
            endMs: (layout.starts[i + 1] ?? layout.seconds) * 1000,
          })),
        });
        const head = new Uint8Array(tag.length + infoFrame.length);
        head.set(tag);
        head.set(infoFrame, tag.length);
        written.push('book');
        await store.writeAudio(jobId, 'book', attempt, 0, 0, head);
        return { bytes: head.length + audioBytes, ...layout };
      });
      const committed = await store.commitBook(jobId, attempt, book, this.deps.retentionDays);
      if (!committed) {
        for (const part of written) await store.deleteAudioAttempt(jobId, part, attempt);
        return;
      }
    } catch (err) {
      for (const part of written) await store.deleteAudioAttempt(jobId, part, attempt).catch(() => undefined);
      throw err;
    }
    await store.dropPcm(jobId);
    await store.deleteStrayAudio(jobId);
    this.deps.log.info({ jobId, chapters: chapters.length }, 'job done');
    await this.changed(jobId);
    // A new version of a book takes the place of the old one once it is done (the old stays until then).
    const replaced = job.replaces === null ? undefined : await store.job(job.replaces);
    if (replaced && replaced.user_id === job.user_id) {
      await this.cancel(replaced);
      await store.delete(replaced.id);
      this.deps.log.info({ jobId: replaced.id, by: jobId }, 'job replaced by a new version: deleted');
      await this.changed(replaced.id);
    }
  }

  private async failJob(jobId: string, error: string): Promise<void> {
    try {
      if (await this.deps.store.fail(jobId, error, this.deps.retentionDays)) {
        this.deps.log.warn({ jobId, error }, 'job failed');
        await this.changed(jobId);
      }
    } catch (err) {
      this.deps.log.error({ err, jobId }, 'could not mark the job failed');
    }
  }

  /**
   * Queues again whatever unfinished jobs still need (tasks a restarted node or a lost queue no longer holds;
   * the queue drops the ones it already has), and deletes jobs past their retention. Runs at start and every
   * `sweepMs`.
   */
  async sweep(): Promise<void> {
    // A sweep waiting on a queue that is down is not joined by the next minute's: one at a time.
    if (this.closed || this.sweeping) return;
    this.sweeping = true;
    const { store, queue, log } = this.deps;
    try {
      for (const job of await store.unfinished()) {
        const pending = await store.pendingPieces(job);
        const tasks: JobTask[] = pending.map((n) => ({ kind: 'piece', jobId: job.id, n }));
        // A node that died between storing a piece and handing out the next leaves the window short: refill it.
        for (let free = this.deps.window - pending.length; free > 0; free--) {
          const next = await store.advanceWindow(job.id);
          if (next === null) break;
          tasks.push({ kind: 'piece', jobId: job.id, n: next });
        }
        // The job row's counts and the chapters ready to encode: never the whole book's chapters.
        for (const n of await store.chaptersToEncode(job.id)) tasks.push({ kind: 'chapter', jobId: job.id, n });
        if (job.chapters_done >= job.chapters) tasks.push({ kind: 'book', jobId: job.id });
        await queue.add(tasks);
      }
      const unused = await store.expireStoredPieces(new Date(Date.now() - this.deps.retentionDays * 86_400_000));
      if (unused > 0) log.info({ pieces: unused }, 'kept pieces unused for JOB_RETENTION_DAYS: deleted');
      for (const id of await store.expired(new Date(), 100)) {
        await store.delete(id);
        log.info({ jobId: id }, 'job expired (JOB_RETENTION_DAYS): deleted with its audio');
        await this.changed(id);
      }
    } catch (err) {
      log.warn({ err }, 'job sweep failed; it runs again later');
    } finally {
      this.sweeping = false;
    }
  }
}

async function firstBytes(source: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  for await (const bytes of source) return bytes;
  throw new Error('the chapter audio is empty');
}
