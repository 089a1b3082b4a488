// Jobs in the database (SQLite or PostgreSQL): the plan every node renders from, each stored piece, and the
// encoded audio. Every write that makes progress is one transaction that changes a row only if it was not
// already changed, so two nodes finishing the same piece (or encoding the same chapter) store it once.
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { sql, type Kysely, type Transaction } from 'kysely';
import { lockUserForCap } from '../accounts/user-lock.ts';
import { AppError } from '../errors.ts';
import type { JobSource } from '../schemas/jobs.ts';
import type { SpeechFormat } from '../schemas/speech.ts';
import type { Db, Dialect } from '../store/database.ts';
import type { Database } from '../store/schema.ts';
import type { Break } from '../synth/text/split.ts';
import type { JobPlan } from './document/plan.ts';
import { decodePieceWords, encodePieceWords, type PieceWord } from './piece-words.ts';

export interface JobsTable {
  id: string;
  user_id: string;
  key_id: string;
  status: string;
  title: string;
  author: string | null;
  voice_id: string;
  speed: number;
  format: string;
  /** JSON array of lexicon names, or null for the account's default. */
  lexicons: string | null;
  text_type: string;
  characters: number;
  /** The audio the job will hold, estimated before work (breaks and expansions included). */
  audio_seconds: number;
  /** The client's Idempotency-Key, if it sent one. */
  idempotency_key: string | null;
  chars_done: number;
  pieces: number;
  pieces_done: number;
  pieces_queued: number;
  chapters: number;
  chapters_done: number;
  book_attempt: string | null;
  book_bytes: number | string | null;
  book_seconds: number | null;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  expires_at: string | null;
  /** The job a new version of the same book replaces (deleted once this one is done). */
  replaces: string | null;
}

export interface JobChaptersTable {
  job_id: string;
  n: number;
  title: string;
  characters: number;
  chars_done: number;
  first_piece: number;
  pieces: number;
  pieces_done: number;
  audio_attempt: string | null;
  audio_bytes: number | string | null;
  audio_head: number | null;
  samples: number | string | null;
  mp3_frames: number | null;
  start_seconds: number | null;
  /** Its pieces' checks: passed first time, passed once rendered again, failed every try. */
  checks_passed: number;
  checks_retried: number;
  checks_failed: number;
  /** Its pieces rendered here, and taken from the account's stored pieces. */
  pieces_rendered: number;
  pieces_reused: number;
  /** A redo's own voice, speed and lexicons (JSON array); null: the job's. */
  voice_id: string | null;
  speed: number | null;
  lexicons: string | null;
}

export interface JobPiecesTable {
  job_id: string;
  n: number;
  chapter: number;
  text: string;
  ssml: number;
  characters: number;
  pause_before: string | null;
  pcm: Uint8Array | null;
  /** 1 when `pcm` is deflated (raw), 0 for the 16-bit samples as they are. */
  pcm_deflated: number;
  samples: number | string | null;
  rendered_by: string | null;
  /** The piece's word timings (piece-words.ts), kept after its PCM is dropped. */
  words: string | null;
  /** What decides its audio, hashed (SpeechService.pieceKey); set when it is stored. */
  content_key: string | null;
  check_state: CheckState | null;
  check_problem: string | null;
  /** 1 when its audio came from the account's stored pieces. */
  reused: number;
}

/** Checked, rendered pieces of an account, by content: what a later job with the same piece reuses. */
export interface JobPieceStoreTable {
  user_id: string;
  content_key: string;
  pcm: Uint8Array;
  pcm_deflated: number;
  samples: number | string;
  /** Its word timings (piece-words.ts), as job_pieces.words. */
  words: string | null;
  created_at: string;
  used_at: string;
}

/** A stored piece's check: passed first time, passed once rendered again, or failed every try. */
export type CheckState = 'passed' | 'retried' | 'failed';

export interface JobAudioTable {
  job_id: string;
  part: string;
  attempt: string;
  seq: number;
  start_byte: number | string;
  bytes: Uint8Array;
}

// A type alias (not an interface): Kysely's withTables wants an indexable record.
type JobTables = {
  jobs: JobsTable;
  job_chapters: JobChaptersTable;
  job_pieces: JobPiecesTable;
  job_audio: JobAudioTable;
  job_piece_store: JobPieceStoreTable;
};

type JobDb = Kysely<Database & JobTables>;

export type JobRow = JobsTable;
export type ChapterRow = JobChaptersTable;

/** A piece as a node renders it. */
export interface PieceRow {
  jobId: string;
  n: number;
  chapter: number;
  text: string;
  ssml: boolean;
  characters: number;
  pauseBefore: Break | null;
  stored: boolean;
}

/** A stored piece as a read-along book shows it. */
export interface SpokenPiece {
  text: string;
  ssml: boolean;
  samples: number;
  words: PieceWord[];
}

/** A piece's PCM as it is stored: deflated (what pieces are stored as now), or the samples as they are. */
export interface StoredPcm {
  bytes: Uint8Array;
  deflated: boolean;
}

/**
 * Deflates a piece's 16-bit PCM for storage, on libuv's threads: a rendered piece waits in the database until
 * its chapter is encoded, and a break's silence (a job may ask for hours of it) shrinks to almost nothing.
 */
export async function deflatePcm(pcm: Uint8Array): Promise<StoredPcm> {
  return { bytes: await deflateRaw(pcm, { level: 1 }), deflated: true };
}

async function inflatePcm(bytes: Uint8Array): Promise<Uint8Array> {
  return inflateRaw(bytes);
}

export interface NewJob {
  userId: string;
  keyId: string | null;
  voiceId: string;
  speed: number;
  format: SpeechFormat;
  lexicons: string[] | null;
  source: JobSource;
  plan: JobPlan;
  audioSeconds: number;
  idempotencyKey: string | null;
  /** Pieces handed to the queue at once (the rest follow as those finish). */
  window: number;
  maxJobsPerUser: number;
  /** The job this one is a new version of. */
  replaces: string | null;
}

/** How a stored piece was got: rendered (and checked), or reused from the account's stored pieces. */
export interface PieceOutcome {
  contentKey: string;
  check: CheckState;
  problem: string | null;
  reused: boolean;
}

const deflateRaw = promisify(zlib.deflateRaw);
const inflateRaw = promisify(zlib.inflateRaw);

/** Rows written per insert when a job is created (SQLite allows 32 766 bound values per statement). */
const INSERT_BATCH = 200;

export const chapterPart = (n: number): string => `chapter:${n}`;

export function newAttempt(): string {
  return randomBytes(8).toString('hex');
}

/**
 * Ends a job that is still queued or running with `outcome` (its status and what comes with it), finished now
 * and kept for `retentionDays`; false when it had ended already (or is gone).
 */
async function endJob(db: JobDb, jobId: string, outcome: Partial<JobsTable>, retentionDays: number): Promise<boolean> {
  const now = new Date();
  const r = await db
    .updateTable('jobs')
    .set({ ...outcome, finished_at: now.toISOString(), expires_at: expiresAt(now, retentionDays) })
    .where('id', '=', jobId)
    .where('status', 'in', ['queued', 'running'])
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export class JobStore {
  private readonly db: JobDb;

  constructor(
    db: Db,
    private readonly dialect: Dialect,
  ) {
    this.db = db.withTables<JobTables>();
  }

  /**
   * Creates the job with its chapters and pieces, unless the account already has `maxJobsPerUser` queued or
   * running (429). The count and the insert are one transaction, serialized per account.
   */
  async create(job: NewJob): Promise<JobRow> {
    const id = `job_${randomBytes(12).toString('base64url')}`;
    const now = new Date().toISOString();
    const { plan } = job;
    const row: JobRow = {
      id,
      user_id: job.userId,
      key_id: job.keyId ?? '',
      status: 'queued',
      title: plan.title,
      author: plan.author,
      voice_id: job.voiceId,
      speed: job.speed,
      format: job.format,
      lexicons: job.lexicons ? JSON.stringify(job.lexicons) : null,
      text_type: job.source,
      characters: plan.characters,
      audio_seconds: job.audioSeconds,
      idempotency_key: job.idempotencyKey,
      chars_done: 0,
      pieces: plan.pieces.length,
      pieces_done: 0,
      pieces_queued: Math.min(job.window, plan.pieces.length),
      chapters: plan.chapters.length,
      chapters_done: 0,
      book_attempt: null,
      book_bytes: null,
      book_seconds: null,
      error: null,
      created_at: now,
      started_at: null,
      finished_at: null,
      expires_at: null,
      replaces: job.replaces,
    };
    await this.db.transaction().execute(async (trx) => {
      await lockUserForCap(trx as unknown as Transaction<Database>, this.dialect, job.userId);
      const open = await trx
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('user_id', '=', job.userId)
        .where('status', 'in', ['queued', 'running'])
        .executeTakeFirstOrThrow();
      if (Number(open.n) >= job.maxJobsPerUser) {
        throw new AppError(
          'too_many_jobs',
          `This account has ${job.maxJobsPerUser} jobs queued or running (MAX_JOBS_PER_USER); retry when one has finished`,
          { 'Retry-After': '60' },
        );
      }
      await trx.insertInto('jobs').values(row).execute();
      const chapters = plan.chapters.map((c, n) => ({
        job_id: id,
        n,
        title: c.title,
        characters: c.characters,
        chars_done: 0,
        first_piece: c.firstPiece,
        pieces: c.pieces,
        pieces_done: 0,
        checks_passed: 0,
        checks_retried: 0,
        checks_failed: 0,
        pieces_rendered: 0,
        pieces_reused: 0,
      }));
      for (let i = 0; i < chapters.length; i += INSERT_BATCH)
        await trx
          .insertInto('job_chapters')
          .values(chapters.slice(i, i + INSERT_BATCH))
          .execute();
      const pieces = plan.pieces.map((p, n) => ({
        job_id: id,
        n,
        chapter: p.chapter,
        text: p.text,
        ssml: p.ssml ? 1 : 0,
        characters: p.characters,
        pause_before: p.pauseBefore,
        pcm_deflated: 0,
        reused: 0,
      }));
      for (let i = 0; i < pieces.length; i += INSERT_BATCH)
        await trx
          .insertInto('job_pieces')
          .values(pieces.slice(i, i + INSERT_BATCH))
          .execute();
    });
    return row;
  }

  /** Bytes an account's jobs hold in the database: encoded audio, pieces not encoded yet, and its kept pieces. */
  async storedBytes(userId: string): Promise<number> {
    const mine = this.db.selectFrom('jobs').select('id').where('user_id', '=', userId);
    const audio = await this.db
      .selectFrom('job_audio')
      .select(sql<number | string | null>`sum(length(bytes))`.as('n'))
      .where('job_id', 'in', mine)
      .executeTakeFirst();
    const pieces = await this.db
      .selectFrom('job_pieces')
      .select(sql<number | string | null>`sum(length(pcm))`.as('n'))
      .where('job_id', 'in', mine)
      .executeTakeFirst();
    const kept = await this.db
      .selectFrom('job_piece_store')
      .select(sql<number | string | null>`sum(length(pcm))`.as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(audio?.n ?? 0) + Number(pieces?.n ?? 0) + Number(kept?.n ?? 0);
  }

  /** The account's job made with this Idempotency-Key, if it is still kept. */
  async byIdempotencyKey(userId: string, key: string): Promise<JobRow | undefined> {
    return this.db.selectFrom('jobs').selectAll().where('user_id', '=', userId).where('idempotency_key', '=', key).executeTakeFirst();
  }

  async job(id: string): Promise<JobRow | undefined> {
    return this.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The job if `userId` owns it (another account's job is as absent as a missing one). */
  async owned(userId: string, id: string): Promise<JobRow | undefined> {
    return this.db.selectFrom('jobs').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  }

  async list(userId: string, limit: number): Promise<JobRow[]> {
    return this.db
      .selectFrom('jobs')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  async chapters(jobId: string): Promise<ChapterRow[]> {
    return this.db.selectFrom('job_chapters').selectAll().where('job_id', '=', jobId).orderBy('n').execute();
  }

  /**
   * The chapters an update can have changed since the ones below `fromN` were all encoded: from `fromN` up to
   * the last one the queue has reached (pieces are handed out in order). What an event stream re-reads on a
   * change, so it costs the chapters under way, not the whole book.
   */
  async activeChapters(job: Pick<JobRow, 'id' | 'pieces_queued'>, fromN: number): Promise<ChapterRow[]> {
    return this.db
      .selectFrom('job_chapters')
      .selectAll()
      .where('job_id', '=', job.id)
      .where('n', '>=', fromN)
      .where('first_piece', '<', Math.max(1, job.pieces_queued))
      .orderBy('n')
      .execute();
  }

  /** Chapters whose pieces are all stored and whose audio is not encoded yet (what the sweep queues). */
  async chaptersToEncode(jobId: string): Promise<number[]> {
    const rows = await this.db
      .selectFrom('job_chapters')
      .select('n')
      .where('job_id', '=', jobId)
      .where('audio_attempt', 'is', null)
      .where(sql<boolean>`pieces_done >= pieces`)
      .orderBy('n')
      .execute();
    return rows.map((r) => r.n);
  }

  async chaptersOf(jobIds: readonly string[]): Promise<Map<string, ChapterRow[]>> {
    const out = new Map<string, ChapterRow[]>(jobIds.map((id) => [id, []]));
    if (jobIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('job_chapters')
      .selectAll()
      .where('job_id', 'in', jobIds)
      .orderBy('job_id')
      .orderBy('n')
      .execute();
    for (const r of rows) out.get(r.job_id)?.push(r);
    return out;
  }

  async chapter(jobId: string, n: number): Promise<ChapterRow | undefined> {
    return this.db.selectFrom('job_chapters').selectAll().where('job_id', '=', jobId).where('n', '=', n).executeTakeFirst();
  }

  async piece(jobId: string, n: number): Promise<PieceRow | undefined> {
    const r = await this.db
      .selectFrom('job_pieces')
      .select(['job_id', 'n', 'chapter', 'text', 'ssml', 'characters', 'pause_before', 'samples'])
      .where('job_id', '=', jobId)
      .where('n', '=', n)
      .executeTakeFirst();
    if (!r) return undefined;
    return {
      jobId: r.job_id,
      n: r.n,
      chapter: r.chapter,
      text: r.text,
      ssml: r.ssml === 1,
      characters: r.characters,
      pauseBefore: r.pause_before as Break | null,
      stored: r.samples !== null,
    };
  }

  /** Marks a queued job running; true when this call did. */
  async markRunning(jobId: string): Promise<boolean> {
    const r = await this.db
      .updateTable('jobs')
      .set({ status: 'running', started_at: new Date().toISOString() })
      .where('id', '=', jobId)
      .where('status', '=', 'queued')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /**
   * Stores a rendered piece and counts it, unless it was stored already (by another node, or before a crash).
   * Says whether this call stored it and whether its chapter is now complete.
   */
  async storePiece(
    jobId: string,
    n: number,
    pcm: StoredPcm,
    samples: number,
    node: string,
    words: readonly PieceWord[],
    outcome: PieceOutcome,
  ): Promise<{ stored: boolean; chapter: number; chapterComplete: boolean }> {
    const bytes = Buffer.from(pcm.bytes.buffer, pcm.bytes.byteOffset, pcm.bytes.byteLength);
    return this.db.transaction().execute(async (trx) => {
      const piece = await trx
        .updateTable('job_pieces')
        .set({
          pcm: bytes,
          pcm_deflated: pcm.deflated ? 1 : 0,
          samples,
          rendered_by: node,
          words: encodePieceWords(words),
          content_key: outcome.contentKey,
          check_state: outcome.check,
          check_problem: outcome.problem,
          reused: outcome.reused ? 1 : 0,
        })
        .where('job_id', '=', jobId)
        .where('n', '=', n)
        .where('samples', 'is', null)
        .returning(['chapter', 'characters'])
        .executeTakeFirst();
      if (!piece) {
        const existing = await trx
          .selectFrom('job_pieces')
          .select('chapter')
          .where('job_id', '=', jobId)
          .where('n', '=', n)
          .executeTakeFirst();
        return { stored: false, chapter: existing?.chapter ?? -1, chapterComplete: false };
      }
      const chapter = await trx
        .updateTable('job_chapters')
        .set((eb) => ({
          pieces_done: eb('pieces_done', '+', 1),
          chars_done: eb('chars_done', '+', piece.characters),
          [`checks_${outcome.check}` as const]: eb(`checks_${outcome.check}`, '+', 1),
          [outcome.reused ? 'pieces_reused' : 'pieces_rendered']: eb(outcome.reused ? 'pieces_reused' : 'pieces_rendered', '+', 1),
        }))
        .where('job_id', '=', jobId)
        .where('n', '=', piece.chapter)
        .returning(['pieces_done', 'pieces'])
        .executeTakeFirstOrThrow();
      await trx
        .updateTable('jobs')
        .set((eb) => ({ pieces_done: eb('pieces_done', '+', 1), chars_done: eb('chars_done', '+', piece.characters) }))
        .where('id', '=', jobId)
        .execute();
      return { stored: true, chapter: piece.chapter, chapterComplete: chapter.pieces_done >= chapter.pieces };
    });
  }

  /** A checked piece of the account's, by content key, if one is stored (marked as used now). */
  async storedPiece(userId: string, contentKey: string): Promise<{ pcm: StoredPcm; samples: number; words: PieceWord[] } | undefined> {
    const r = await this.db
      .updateTable('job_piece_store')
      .set({ used_at: new Date().toISOString() })
      .where('user_id', '=', userId)
      .where('content_key', '=', contentKey)
      .returning(['pcm', 'pcm_deflated', 'samples', 'words'])
      .executeTakeFirst();
    return r
      ? { pcm: { bytes: r.pcm, deflated: r.pcm_deflated === 1 }, samples: Number(r.samples), words: decodePieceWords(r.words) }
      : undefined;
  }

  /** Keeps a checked piece for later jobs of the account (one already kept under the key stays). */
  async keepPiece(userId: string, contentKey: string, pcm: StoredPcm, samples: number, words: readonly PieceWord[]): Promise<void> {
    const now = new Date().toISOString();
    await this.db
      .insertInto('job_piece_store')
      .values({
        user_id: userId,
        content_key: contentKey,
        pcm: Buffer.from(pcm.bytes.buffer, pcm.bytes.byteOffset, pcm.bytes.byteLength),
        pcm_deflated: pcm.deflated ? 1 : 0,
        samples,
        words: encodePieceWords(words),
        created_at: now,
        used_at: now,
      })
      .onConflict((oc) => oc.columns(['user_id', 'content_key']).doNothing())
      .execute();
  }

  /** Deletes stored pieces not used since `before` (JOB_RETENTION_DAYS); how many went. */
  async expireStoredPieces(before: Date): Promise<number> {
    const r = await this.db.deleteFrom('job_piece_store').where('used_at', '<', before.toISOString()).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** The pieces of a chapter whose check failed on every try, with what was wrong. */
  async failedPieces(jobId: string, chapter: number): Promise<Array<{ n: number; problem: string }>> {
    const rows = await this.db
      .selectFrom('job_pieces')
      .select(['n', 'check_problem'])
      .where('job_id', '=', jobId)
      .where('chapter', '=', chapter)
      .where('check_state', '=', 'failed')
      .orderBy('n')
      .execute();
    return rows.map((r) => ({ n: r.n, problem: r.check_problem ?? '' }));
  }

  /**
   * Opens a done job again to render chapter `n` anew, with its own voice, speed and lexicons where given: the
   * chapter's pieces and audio are cleared and the job runs until its book is assembled again. One transaction,
   * and only from `done`, so two redos at once open it once. Returns the chapter, or undefined when the job
   * was not done.
   */
  async reopenChapter(
    jobId: string,
    n: number,
    own: { voiceId?: string; speed?: number; lexicons?: string[] },
  ): Promise<ChapterRow | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const chapter = await trx.selectFrom('job_chapters').selectAll().where('job_id', '=', jobId).where('n', '=', n).executeTakeFirst();
      if (!chapter) return undefined;
      const r = await trx
        .updateTable('jobs')
        .set((eb) => ({
          status: 'running',
          error: null,
          finished_at: null,
          expires_at: null,
          book_attempt: null,
          book_bytes: null,
          book_seconds: null,
          chapters_done: eb('chapters_done', '-', chapter.audio_attempt === null ? 0 : 1),
          pieces_done: eb('pieces_done', '-', chapter.pieces_done),
          chars_done: eb('chars_done', '-', chapter.chars_done),
        }))
        .where('id', '=', jobId)
        .where('status', '=', 'done')
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) return undefined;
      const reopened = {
        pieces_done: 0,
        chars_done: 0,
        audio_attempt: null,
        audio_bytes: null,
        audio_head: null,
        samples: null,
        mp3_frames: null,
        checks_passed: 0,
        checks_retried: 0,
        checks_failed: 0,
        pieces_rendered: 0,
        pieces_reused: 0,
        ...(own.voiceId !== undefined ? { voice_id: own.voiceId } : {}),
        ...(own.speed !== undefined ? { speed: own.speed } : {}),
        ...(own.lexicons !== undefined ? { lexicons: JSON.stringify(own.lexicons) } : {}),
      };
      await trx.updateTable('job_chapters').set(reopened).where('job_id', '=', jobId).where('n', '=', n).execute();
      await trx
        .updateTable('job_pieces')
        .set({ pcm: null, samples: null, rendered_by: null, content_key: null, check_state: null, check_problem: null, reused: 0 })
        .where('job_id', '=', jobId)
        .where('chapter', '=', n)
        .execute();
      return { ...chapter, ...reopened };
    });
  }

  /** Hands the next piece of the book to the queue: its number, or null once every piece has been handed out. */
  async advanceWindow(jobId: string): Promise<number | null> {
    const r = await this.db
      .updateTable('jobs')
      .set((eb) => ({ pieces_queued: eb('pieces_queued', '+', 1) }))
      .where('id', '=', jobId)
      .where('status', 'in', ['queued', 'running'])
      .where(sql<boolean>`pieces_queued < pieces`)
      .returning('pieces_queued')
      .executeTakeFirst();
    return r ? r.pieces_queued - 1 : null;
  }

  /** The stored PCM of a chapter's pieces, in order, one piece at a time (inflated where it was stored deflated). */
  async *chapterPcm(jobId: string, chapter: ChapterRow): AsyncGenerator<Uint8Array> {
    for (let n = chapter.first_piece; n < chapter.first_piece + chapter.pieces; n++) {
      const r = await this.db
        .selectFrom('job_pieces')
        .select(['pcm', 'pcm_deflated', 'samples'])
        .where('job_id', '=', jobId)
        .where('n', '=', n)
        .executeTakeFirst();
      if (!r || r.samples === null || r.pcm === null) throw new Error(`piece ${n} of job ${jobId} has no stored audio`);
      yield r.pcm_deflated === 1 ? await inflatePcm(r.pcm) : r.pcm;
    }
  }

  /** What a chapter's pieces said and when (a read-along book's text and timings), in order. */
  async chapterText(jobId: string, chapter: ChapterRow): Promise<SpokenPiece[]> {
    const rows = await this.db
      .selectFrom('job_pieces')
      .select(['text', 'ssml', 'samples', 'words'])
      .where('job_id', '=', jobId)
      .where('n', '>=', chapter.first_piece)
      .where('n', '<', chapter.first_piece + chapter.pieces)
      .orderBy('n')
      .execute();
    return rows.map((r) => ({ text: r.text, ssml: r.ssml === 1, samples: Number(r.samples ?? 0), words: decodePieceWords(r.words) }));
  }

  /** Drops the PCM of the pieces of a chapter (its encoded audio is stored; the pieces stay counted). */
  async dropPcm(jobId: string, chapter?: ChapterRow): Promise<void> {
    let q = this.db.updateTable('job_pieces').set({ pcm: null }).where('job_id', '=', jobId);
    if (chapter) q = q.where('n', '>=', chapter.first_piece).where('n', '<', chapter.first_piece + chapter.pieces);
    await q.execute();
  }

  async writeAudio(jobId: string, part: string, attempt: string, seq: number, startByte: number, bytes: Uint8Array): Promise<void> {
    await this.db
      .insertInto('job_audio')
      .values({
        job_id: jobId,
        part,
        attempt,
        seq,
        start_byte: startByte,
        bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      })
      .execute();
  }

  /** The stored rows of one attempt at a part. */
  private audioRows(jobId: string, part: string, attempt: string) {
    return this.db.selectFrom('job_audio').where('job_id', '=', jobId).where('part', '=', part).where('attempt', '=', attempt);
  }

  /** Moves an attempt's rows `by` bytes later in the file (a header that goes before them is known only at the end). */
  async shiftAudio(jobId: string, part: string, attempt: string, by: number): Promise<void> {
    await this.db
      .updateTable('job_audio')
      .set((eb) => ({ start_byte: eb('start_byte', '+', by) }))
      .where('job_id', '=', jobId)
      .where('part', '=', part)
      .where('attempt', '=', attempt)
      .execute();
  }

  /** Overwrites the first bytes of row `seq` (a header whose counts are known only at the end). */
  async patchAudio(jobId: string, part: string, attempt: string, seq: number, patch: Uint8Array): Promise<void> {
    const row = await this.audioRows(jobId, part, attempt).select('bytes').where('seq', '=', seq).executeTakeFirst();
    if (!row || row.bytes.length < patch.length) throw new Error(`no room for a ${patch.length}-byte header in ${part}`);
    const bytes = Buffer.from(row.bytes);
    bytes.set(patch, 0);
    await this.db
      .updateTable('job_audio')
      .set({ bytes })
      .where('job_id', '=', jobId)
      .where('part', '=', part)
      .where('attempt', '=', attempt)
      .where('seq', '=', seq)
      .execute();
  }

  /** Bytes stored for a part. */
  async partLength(jobId: string, part: string, attempt: string): Promise<number> {
    const row = await this.audioRows(jobId, part, attempt)
      .select(['start_byte', sql<number | string>`length(bytes)`.as('size')])
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? Number(row.start_byte) + Number(row.size) : 0;
  }

  /** Keeps an attempt's encoding as the chapter's audio, unless another attempt was kept first; true if this one was. */
  async commitChapter(
    jobId: string,
    n: number,
    attempt: string,
    audio: { bytes: number; head: number; samples: number; mp3Frames: number | null },
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const r = await trx
        .updateTable('job_chapters')
        .set({
          audio_attempt: attempt,
          audio_bytes: audio.bytes,
          audio_head: audio.head,
          samples: audio.samples,
          mp3_frames: audio.mp3Frames,
        })
        .where('job_id', '=', jobId)
        .where('n', '=', n)
        .where('audio_attempt', 'is', null)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) return false;
      await trx
        .updateTable('jobs')
        .set((eb) => ({ chapters_done: eb('chapters_done', '+', 1) }))
        .where('id', '=', jobId)
        .execute();
      return true;
    });
  }

  /** Finishes the job with its book assembled; false if it was finished (or deleted) already. */
  async commitBook(
    jobId: string,
    attempt: string,
    book: { bytes: number; seconds: number; starts: readonly number[] },
    retentionDays: number,
  ): Promise<boolean> {
    const { bytes, seconds } = book;
    return this.db.transaction().execute(async (trx) => {
      const outcome = { status: 'done', book_attempt: attempt, book_bytes: bytes, book_seconds: seconds };
      if (!(await endJob(trx, jobId, outcome, retentionDays))) return false;
      for (const [n, start] of book.starts.entries()) {
        await trx.updateTable('job_chapters').set({ start_seconds: start }).where('job_id', '=', jobId).where('n', '=', n).execute();
      }
      return true;
    });
  }

  async fail(jobId: string, error: string, retentionDays: number): Promise<boolean> {
    if (!(await endJob(this.db, jobId, { status: 'failed', error: error.slice(0, 1000) }, retentionDays))) return false;
    await this.db.updateTable('job_pieces').set({ pcm: null }).where('job_id', '=', jobId).execute();
    return true;
  }

  /** Deletes a job with everything it holds (chapters, pieces, audio, and kept pieces no other job of the account has). */
  async delete(jobId: string): Promise<boolean> {
    // Its kept pieces go with it, unless another job of the account holds the same content.
    const job = await this.job(jobId);
    if (job) {
      const keys = (id: string, same: boolean) =>
        this.db
          .selectFrom('job_pieces')
          .select('content_key')
          .where('job_id', same ? '=' : '!=', id)
          .where('job_id', 'in', this.db.selectFrom('jobs').select('id').where('user_id', '=', job.user_id))
          .where('content_key', 'is not', null);
      await this.db
        .deleteFrom('job_piece_store')
        .where('user_id', '=', job.user_id)
        .where('content_key', 'in', keys(jobId, true))
        .where('content_key', 'not in', keys(jobId, false))
        .execute();
    }
    // Audio and pieces first, in their own statements: the biggest rows, without one giant cascade.
    await this.db.deleteFrom('job_audio').where('job_id', '=', jobId).execute();
    await this.db.deleteFrom('job_pieces').where('job_id', '=', jobId).execute();
    const r = await this.db.deleteFrom('jobs').where('id', '=', jobId).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Audio of encodings that were not kept (a crashed or beaten attempt). */
  async deleteAudioAttempt(jobId: string, part: string, attempt: string): Promise<void> {
    await this.db.deleteFrom('job_audio').where('job_id', '=', jobId).where('part', '=', part).where('attempt', '=', attempt).execute();
  }

  /** Audio rows of a job that no committed chapter or book points at (left by attempts that died). */
  async deleteStrayAudio(jobId: string): Promise<void> {
    const job = await this.job(jobId);
    const chapters = await this.chapters(jobId);
    const kept = new Set(chapters.filter((c) => c.audio_attempt !== null).map((c) => `${chapterPart(c.n)}|${c.audio_attempt}`));
    const rows = await this.db.selectFrom('job_audio').select(['part', 'attempt']).distinct().where('job_id', '=', jobId).execute();
    for (const r of rows) {
      const keep = kept.has(`${r.part}|${r.attempt}`) || (r.attempt === job?.book_attempt && (r.part === 'book' || r.part === 'gap'));
      if (!keep) await this.deleteAudioAttempt(jobId, r.part, r.attempt);
    }
  }

  /** Reads bytes [from, to) of a stored part, in the rows it was written in. */
  async *readAudio(jobId: string, part: string, attempt: string, from: number, to: number): AsyncGenerator<Uint8Array> {
    if (to <= from) return;
    // The row that holds `from`, then every row until `to`.
    const first = await this.audioRows(jobId, part, attempt)
      .select('seq')
      .where('start_byte', '<=', from)
      .orderBy('start_byte', 'desc')
      .limit(1)
      .executeTakeFirst();
    for (let seq = first?.seq ?? 0; ; seq++) {
      const row = await this.audioRows(jobId, part, attempt).select(['start_byte', 'bytes']).where('seq', '=', seq).executeTakeFirst();
      if (!row) return;
      const start = Number(row.start_byte);
      const end = start + row.bytes.length;
      if (start >= to) return;
      if (end > from) yield row.bytes.subarray(Math.max(0, from - start), Math.min(row.bytes.length, to - start));
    }
  }

  /** Jobs not finished yet: what a node picks up again when it starts. */
  async unfinished(): Promise<JobRow[]> {
    return this.db.selectFrom('jobs').selectAll().where('status', 'in', ['queued', 'running']).orderBy('created_at').execute();
  }

  /** Pieces handed to the queue and not stored yet. */
  async pendingPieces(job: JobRow): Promise<number[]> {
    const rows = await this.db
      .selectFrom('job_pieces')
      .select('n')
      .where('job_id', '=', job.id)
      .where('n', '<', job.pieces_queued)
      .where('samples', 'is', null)
      .orderBy('n')
      .execute();
    return rows.map((r) => r.n);
  }

  async expired(now: Date, limit: number): Promise<string[]> {
    const rows = await this.db.selectFrom('jobs').select('id').where('expires_at', '<', now.toISOString()).limit(limit).execute();
    return rows.map((r) => r.id);
  }

  /** How many pieces each node rendered and stored for a job (kept for diagnostics). */
  async renderedBy(jobId: string): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('job_pieces')
      .select(['rendered_by', (eb) => eb.fn.countAll().as('n')])
      .where('job_id', '=', jobId)
      .where('samples', 'is not', null)
      .groupBy('rendered_by')
      .execute();
    return new Map(rows.map((r) => [r.rendered_by ?? '', Number(r.n)]));
  }
}

/** When a job that ended at `now` is deleted with its audio (JOB_RETENTION_DAYS). */
const expiresAt = (now: Date, retentionDays: number): string => new Date(now.getTime() + retentionDays * 86_400_000).toISOString();
