// Long-form jobs: a book or long document in, a chaptered audiobook out. Pure: only TypeBox, so the server, the
// client SDK and the dashboard share the shapes and the limits' defaults.
import { Type, type Static } from '@sinclair/typebox';
import { LexiconNames } from './lexicons.ts';
import { MultipartUpload } from './multipart.ts';
import { SPEECH_FORMATS, Speed, VoiceId } from './speech.ts';

/** What a job's text is: the JSON body's `text_type`, or what an upload's file extension says. */
export const JOB_TEXT_TYPES = ['text', 'markdown', 'html', 'ssml'] as const;
export type JobTextType = (typeof JOB_TEXT_TYPES)[number];

/** The kinds of document a job reads: the text types plus EPUB, which comes only as an upload. */
export const JOB_SOURCES = [...JOB_TEXT_TYPES, 'epub'] as const;
export type JobSource = (typeof JOB_SOURCES)[number];

/** Upload file extensions and the document kind each one means. */
export const JOB_UPLOAD_EXTENSIONS: Readonly<Record<string, JobSource>> = Object.freeze({
  txt: 'text',
  text: 'text',
  md: 'markdown',
  markdown: 'markdown',
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  ssml: 'ssml',
  epub: 'epub',
});

export const JOB_STATUSES = ['queued', 'running', 'done', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** A chapter is waiting, being rendered (some of its pieces are), or done (its audio can be fetched). */
export const CHAPTER_STATUSES = ['queued', 'running', 'done'] as const;
export type ChapterStatus = (typeof CHAPTER_STATUSES)[number];

/**
 * Defaults of the limits (MAX_JOB_CHARS, MAX_JOBS_PER_USER, JOB_RETENTION_DAYS, MAX_JOB_UPLOAD_MB,
 * MAX_JOB_CHAPTERS, MAX_JOB_PIECES).
 */
export const JOB_DEFAULTS = Object.freeze({
  maxJobChars: 2_000_000,
  maxJobsPerUser: 2,
  retentionDays: 7,
  maxUploadMb: 50,
  /** A long book has a few hundred chapters (its table of contents' entries). */
  maxChapters: 500,
  /** MAX_JOB_CHARS in pieces of a few hundred characters, with room for short paragraphs. */
  maxPieces: 20_000,
  /** MAX_JOB_CHARS of normal speech (about 37 hours) with room for pauses. */
  maxAudioSeconds: 172_800,
  /** What an account's jobs may hold in the database, in MiB. */
  maxStorageMbPerUser: 2_048,
});

/** Silence between two chapters in the whole book's audio. */
export const CHAPTER_PAUSE_SECONDS = 1.5;

const Title = Type.String({
  maxLength: 500,
  description: 'Title of the book (the document’s own when absent: the EPUB’s metadata, the first heading)',
});
const Author = Type.String({ maxLength: 500, description: 'Author (the EPUB’s metadata when absent)' });
const Format = Type.Union(
  SPEECH_FORMATS.map((f) => Type.Literal(f)),
  {
    description: 'Audio format, mp3 by default. mp3: the whole book is one file with ID3v2 chapters; every format: each chapter on its own',
  },
);

const Replaces = Type.String({
  minLength: 1,
  maxLength: 100,
  description:
    'A job of yours this document is a new version of: its voice, speed, format and lexicons are the defaults, only pieces whose content changed are rendered ' +
    '(the rest are reused), and the old job is deleted once this one is done',
});

/** POST /v1/jobs/{id}/chapters/{n}/render: the chapter's own voice, speed and lexicons (the job's where absent). */
export const ChapterRedoBody = Type.Object(
  { voice_id: Type.Optional(VoiceId), speed: Type.Optional(Speed), lexicons: Type.Optional(LexiconNames) },
  { additionalProperties: false },
);
export type ChapterRedoBody = Static<typeof ChapterRedoBody>;

/**
 * The headers of POST /v1/jobs that mean something to it: an `Idempotency-Key` makes a retry of the same creation
 * (after a timeout, a dropped connection) answer with the job the first attempt made instead of making another.
 */
export const JobCreateHeaders = Type.Object(
  {
    'idempotency-key': Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        pattern: '^[\\x21-\\x7e]+$',
        description:
          'Any token of up to 255 visible ASCII characters, chosen by the client per job it means to create: the same key from the same account finds the same job for as long as that job is kept',
      }),
    ),
  },
  { additionalProperties: true },
);
export type JobCreateHeaders = Static<typeof JobCreateHeaders>;

export const JobCreateBody = Type.Object(
  {
    text: Type.String({
      minLength: 1,
      description: 'The document: plain text, Markdown, HTML or SSML (text_type); up to MAX_JOB_CHARS spoken characters',
    }),
    text_type: Type.Optional(
      Type.Union(
        JOB_TEXT_TYPES.map((t) => Type.Literal(t)),
        {
          description:
            'text (default; lines such as "Chapter 12" start chapters), markdown and html (headings start chapters), ssml (one chapter)',
        },
      ),
    ),
    voice_id: Type.Optional(VoiceId),
    speed: Type.Optional(Speed),
    format: Type.Optional(Format),
    lexicons: Type.Optional(LexiconNames),
    title: Type.Optional(Title),
    author: Type.Optional(Author),
    replaces: Type.Optional(Replaces),
    chapters: Type.Optional(
      Type.Array(Type.Integer({ minimum: 0, maximum: 99_999 }), {
        minItems: 1,
        maxItems: 1000,
        uniqueItems: true,
        description: 'Only these chapters of the document (indices from 0, in any order; rendered in the document’s order)',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        text: 'Chapter 1\n\nIt was a bright cold day in April.\n\nChapter 2\n\nThe clocks were striking thirteen.',
        voice_id: 'flite-slt',
        format: 'mp3',
        title: 'A Short Book',
      },
    ],
  },
);
export type JobCreateBody = Static<typeof JobCreateBody>;

/** Text fields of the multipart form arrive as strings; speed is a decimal, lexicons a comma-separated list. */
export const JobUploadFields = Type.Object(
  {
    text_type: Type.Optional(
      Type.Union(
        JOB_SOURCES.map((t) => Type.Literal(t)),
        { description: 'What the file is; by default its extension says (.txt, .md, .html, .ssml, .epub)' },
      ),
    ),
    voice_id: Type.Optional(VoiceId),
    speed: Type.Optional(
      Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', maxLength: 12, description: 'Speaking rate, 0.25 to 4; 1 = normal' }),
    ),
    format: Type.Optional(Format),
    lexicons: Type.Optional(Type.String({ maxLength: 2000, description: 'Lexicon names, comma-separated' })),
    title: Type.Optional(Title),
    author: Type.Optional(Author),
    replaces: Type.Optional(Replaces),
    chapters: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,5}(,[0-9]{1,5})*$',
        maxLength: 6000,
        description: 'Only these chapters, comma-separated indices from 0',
      }),
    ),
  },
  { additionalProperties: false },
);
export type JobUploadFields = Static<typeof JobUploadFields>;

/** The multipart form of POST /v1/jobs: the document in `file`, and the text fields. */
export const JobUpload = MultipartUpload(
  'file',
  'The document: .txt, .md, .html, .ssml or .epub (MAX_JOB_UPLOAD_MB, 50 MiB by default)',
  JobUploadFields,
);
export type JobUpload = Static<typeof JobUpload>;

/** What the pieces' checks found: every piece is checked before it counts (speech where text was, no long silence, no clipping). */
export const JobChecks = Type.Object(
  {
    passed: Type.Integer({ description: 'Pieces that passed their check (the first time, or once rendered again)' }),
    retried: Type.Integer({ description: 'Of those, pieces that failed it first and passed once rendered again' }),
    failed: Type.Integer({ description: 'Pieces that failed it on every try: kept as the last try sounded, and worth a listen' }),
  },
  { description: 'The checks of the pieces stored so far' },
);
export type JobChecks = Static<typeof JobChecks>;

export const JobChapter = Type.Object({
  index: Type.Integer({ description: 'Position in the book, from 0; the n of /v1/jobs/{id}/chapters/{n}/audio' }),
  title: Type.String(),
  characters: Type.Integer({ description: 'Spoken characters' }),
  status: Type.Union(
    CHAPTER_STATUSES.map((s) => Type.Literal(s)),
    { description: 'queued, running (pieces are being rendered) or done (its audio can be fetched)' },
  ),
  progress: Type.Number({ minimum: 0, maximum: 1, description: 'Share of its characters rendered' }),
  start_seconds: Type.Union([Type.Number(), Type.Null()], {
    description: 'Where it starts in the whole book’s audio, once the book is done',
  }),
  duration_seconds: Type.Union([Type.Number(), Type.Null()], { description: 'Length of its audio, once done' }),
  audio_url: Type.Union([Type.String(), Type.Null()], { description: 'Its audio, once done' }),
  checks: JobChecks,
  pieces: Type.Object(
    { total: Type.Integer(), done: Type.Integer(), rendered: Type.Integer(), reused: Type.Integer() },
    { description: 'Its pieces, those stored, and of those how many were rendered and how many reused (same content stored before)' },
  ),
});
export type JobChapter = Static<typeof JobChapter>;

export const Job = Type.Object(
  {
    id: Type.String(),
    status: Type.Union(
      JOB_STATUSES.map((s) => Type.Literal(s)),
      { description: 'queued, running, done, failed or cancelled' },
    ),
    progress: Type.Number({ minimum: 0, maximum: 1, description: 'Share of the characters rendered; 1 only once the book is done' }),
    characters: Type.Integer({ description: 'Spoken characters of the whole document (what usage counts)' }),
    audio_seconds: Type.Number({
      minimum: 0,
      description:
        'The audio the job will hold, estimated before any work: every break’s silence, the words as said once <sub>, lexicon aliases and <say-as> are expanded ' +
        '(at 15 characters a second at speed 1), and the pauses between chapters. MAX_JOB_AUDIO_SECONDS bounds it',
    }),
    chapters: Type.Array(JobChapter),
    title: Type.String(),
    author: Type.Union([Type.String(), Type.Null()]),
    voice_id: Type.String(),
    speed: Type.Number(),
    format: Format,
    text_type: Type.Union(JOB_SOURCES.map((t) => Type.Literal(t))),
    pieces: Type.Object(
      { total: Type.Integer(), done: Type.Integer(), rendered: Type.Integer(), reused: Type.Integer() },
      {
        description:
          'The pieces the book is rendered in (paragraphs grouped to a few hundred characters): all, stored, and of those stored how many were rendered and how many ' +
          'reused (a piece whose content (text, voice, speed, lexicons, engine and voice files) was stored before is not rendered again)',
      },
    ),
    checks: JobChecks,
    duration_seconds: Type.Union([Type.Number(), Type.Null()], { description: 'Length of the whole book’s audio, once done' }),
    audio_url: Type.Union([Type.String(), Type.Null()], { description: 'The whole book, once done' }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Why it failed' }),
    created_at: Type.String(),
    started_at: Type.Union([Type.String(), Type.Null()]),
    finished_at: Type.Union([Type.String(), Type.Null()]),
    expires_at: Type.Union([Type.String(), Type.Null()], {
      description: 'When its audio is deleted (JOB_RETENTION_DAYS after it finished)',
    }),
  },
  { description: 'A long-form job' },
);
export type Job = Static<typeof Job>;

export const JobList = Type.Object({ jobs: Type.Array(Job) }, { description: 'Your jobs, newest first' });
export type JobList = Static<typeof JobList>;

export const ChapterIndex = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    author: Type.Union([Type.String(), Type.Null()]),
    format: Format,
    duration_seconds: Type.Union([Type.Number(), Type.Null()]),
    chapters: Type.Array(JobChapter),
  },
  { description: 'The chapter index: titles and start times in the whole book' },
);
export type ChapterIndex = Static<typeof ChapterIndex>;

export const JobParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
export type JobParams = Static<typeof JobParams>;

export const ChapterParams = Type.Object({
  id: Type.String({ maxLength: 100 }),
  n: Type.String({ pattern: '^[0-9]{1,6}$', description: 'Chapter index, from 0' }),
});
export type ChapterParams = Static<typeof ChapterParams>;

export const JobDeleted = Type.Object(
  { id: Type.String(), deleted: Type.Literal(true) },
  { description: 'The job was cancelled (if still running) and deleted with its audio' },
);
export type JobDeleted = Static<typeof JobDeleted>;

/** The SSE event `warning`: a chapter has pieces that failed their check on every try (sent again as more fail). */
export const JobWarning = Type.Object(
  {
    id: Type.String(),
    chapter: Type.Integer({ description: 'The chapter’s index' }),
    title: Type.String(),
    checks: JobChecks,
    failed_pieces: Type.Array(Type.Object({ n: Type.Integer(), problem: Type.String() }), {
      description: 'Its pieces that failed, by number in the book, with what was wrong',
    }),
  },
  { description: 'Pieces of a chapter that failed their checks' },
);
export type JobWarning = Static<typeof JobWarning>;

/** Names of the SSE events that end the stream of /v1/jobs/{id}/events; changes before them are unnamed `data:` lines. */
export const JOB_FINAL_EVENTS = ['done', 'failed', 'cancelled'] as const;
