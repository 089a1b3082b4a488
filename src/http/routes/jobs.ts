import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import parseRange from 'range-parser';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import {
  ChapterIndex,
  ChapterRedoBody,
  ChapterParams,
  Job,
  JobCreateBody,
  JobCreateHeaders,
  JobDeleted,
  JobList,
  JobParams,
  JobUpload,
  JOB_UPLOAD_EXTENSIONS,
  type JobSource,
  type JobUploadFields,
} from '../../schemas/jobs.ts';
import type { JobAudio } from '../../jobs/job-service.ts';
import type { JobDownload } from '../../jobs/outputs/job-outputs.ts';
import { JobAudioQuery, JobEpubQuery } from '../../schemas/job-outputs.ts';
import { isSsml } from '../../speech/markup.ts';
import { requireScope } from '../plugins/auth.ts';
import { readMultipartBody } from '../multipart-body.ts';
import { hangUpSignal, speechCaller, speechRouteOptions } from '../speech-reply.ts';

/**
 * Jobs are synthesis: every job route is authorized as the speech routes are (a key, or a same-origin session),
 * which is where the `speech` scope is required of a key.
 */
const jobRoute = speechRouteOptions;

const MULTIPART_FIELDS = 10;
/** The longest text field of the form (lexicon names, comma-separated). */
const FIELD_BYTES = 8 * 1024;

/** Upload file names travel beside the body, which the schema checks as the form's fields only. */
const uploadNames = new WeakMap<FastifyRequest, string>();

/** Reads a multipart upload into `request.body` (the file as bytes, the fields as strings) before validation. */
async function readUpload(request: FastifyRequest): Promise<void> {
  if (!request.isMultipart()) return;
  const fileName = await readMultipartBody(request, 'file');
  if (fileName !== undefined) uploadNames.set(request, fileName);
}

/** The kind of an uploaded document: `text_type` when given, else its file extension. */
function uploadSource(fields: JobUploadFields, fileName: string): JobSource {
  if (fields.text_type) return fields.text_type;
  const ext = /\.([A-Za-z0-9]+)$/.exec(fileName)?.[1]?.toLowerCase() ?? '';
  const source = Object.hasOwn(JOB_UPLOAD_EXTENSIONS, ext) ? JOB_UPLOAD_EXTENSIONS[ext] : undefined;
  if (!source) {
    throw new AppError(
      'unsupported_media_type',
      `Cannot tell what "${fileName.slice(0, 100)}" is: upload a .txt, .md, .html, .ssml or .epub file, or set text_type`,
    );
  }
  return source;
}

/** The one byte range of a Range header, inclusive; null = the whole file; 'bad' = not satisfiable. */
function byteRange(header: string | undefined, length: number): { start: number; end: number } | null | 'bad' {
  // Another unit than bytes: the whole file, as RFC 9110 allows.
  if (!header?.startsWith('bytes=')) return null;
  const ranges = parseRange(length, header);
  // A suffix longer than the file means all of it (RFC 9110 14.1.2); range-parser 1.3 still calls it unsatisfiable.
  if (ranges === -1 && length > 0 && /^bytes=\s*-\s*\d*[1-9]\d*\s*$/.test(header)) return { start: 0, end: length - 1 };
  if (ranges === -1) return 'bad';
  // Malformed, or several ranges: the whole file too.
  return ranges === -2 || ranges.length !== 1 ? null : ranges[0];
}

async function sendJobAudio(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
  audio: JobAudio,
): Promise<FastifyReply> {
  const etag = `"${audio.segments
    .map((s) => s.attempt)
    .join('.')
    .slice(0, 64)}-${audio.length}"`;
  const ifRange = request.headers['if-range'];
  const range = ifRange !== undefined && ifRange !== etag ? null : byteRange(request.headers.range, audio.length);
  reply
    .type(audio.contentType)
    .header('Accept-Ranges', 'bytes')
    .header('ETag', etag)
    .header('Cache-Control', 'private, no-cache')
    .header('Content-Disposition', `inline; filename="${audio.fileName.replace(/"/g, '')}"`);
  if (range === 'bad') {
    reply.header('Content-Range', `bytes */${audio.length}`);
    throw new AppError('range_not_satisfiable', `The range is outside the file (${audio.length} bytes)`);
  }
  const { start, end } = range ?? { start: 0, end: audio.length - 1 };
  if (range) reply.status(206).header('Content-Range', `bytes ${start}-${end}/${audio.length}`);
  reply.header('Content-Length', String(end - start + 1));
  if (request.method === 'HEAD' || audio.length === 0) return reply.send();
  return reply.send(Readable.from(app.services.jobs.read(id, audio, start, end), { objectMode: false }));
}

/** A download made as it is sent (a zip of stored audio): its length is not known ahead, so it has no Range. */
function sendDownload(reply: FastifyReply, download: JobDownload): FastifyReply {
  reply
    .type(download.contentType)
    .header('Cache-Control', 'private, no-cache')
    .header('Content-Disposition', `attachment; filename="${download.fileName.replace(/"/g, '')}"`);
  return reply.send(Readable.from(download.body, { objectMode: false }));
}

function userOf(request: FastifyRequest): string {
  return speechCaller(request.principal).userId;
}

const audioResponses = {
  200: {
    description: 'The audio (Range requests answer 206 with Content-Range)',
    content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
  },
  206: { description: 'The requested bytes', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
};

/**
 * /v1/jobs: long-form synthesis. A document (JSON text, or an upload) becomes a job that every node of a cluster
 * renders piece by piece; its progress streams as Server-Sent Events and its audio (the whole book, or each
 * chapter as soon as it is done) is served with Range support.
 */
export async function jobRoutes(app: FastifyInstance): Promise<void> {
  const { maxUploadBytes, maxChars } = app.config.jobs;
  await app.register(multipart, {
    limits: {
      fileSize: maxUploadBytes,
      files: 1,
      fields: MULTIPART_FIELDS,
      fieldSize: FIELD_BYTES,
      fieldNameSize: 100,
      parts: MULTIPART_FIELDS + 2,
      headerPairs: 50,
    },
  });
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const jobs = app.services.jobs;
  // A JSON text of MAX_JOB_CHARS characters, with room for markup and escapes.
  const jsonLimit = Math.min(maxUploadBytes, maxChars * 6 + 64 * 1024);

  r.post(
    '/v1/jobs',
    {
      ...jobRoute,
      // Who is asking is settled before a byte of an upload is read.
      preValidation: [requireScope('speech'), readUpload],
      bodyLimit: Math.max(jsonLimit, maxUploadBytes + 64 * 1024),
      schema: {
        summary: 'Create a job (a book or long document)',
        description:
          'JSON `{text, text_type}` (plain text, Markdown, HTML or SSML) or multipart with the document in `file` (.txt, .md, .html, .ssml, .epub) and the ' +
          'same fields. Chapters come from the EPUB’s table of contents, headings, or lines such as "Chapter 12". Answers 202 with the job; ' +
          'everything that can be refused (size, MAX_JOBS_PER_USER, a bad EPUB, the voice) is refused before any synthesis.',
        consumes: ['application/json', 'multipart/form-data'],
        headers: JobCreateHeaders,
        body: { content: { 'application/json': { schema: JobCreateBody }, 'multipart/form-data': { schema: JobUpload } } },
        response: { 202: Job },
      },
    },
    async (request, reply) => {
      if (request.body === undefined || request.body === null)
        throw new AppError('validation', 'Send the document as JSON {text} or as a multipart upload in the field file');
      const caller = speechCaller(request.principal);
      const idempotencyKey = request.headers['idempotency-key'];
      const once = typeof idempotencyKey === 'string' ? { idempotencyKey } : {};
      let job;
      if (request.isMultipart()) {
        const body = request.body as JobUpload;
        const fileName = uploadNames.get(request) ?? '';
        if (body.file.length === 0) throw new AppError('invalid_document', 'The file is empty');
        job = await jobs.create(caller, {
          source: uploadSource(body, fileName),
          bytes: body.file,
          fileName,
          voiceId: body.voice_id,
          speed: body.speed === undefined ? undefined : Number(body.speed),
          format: body.format,
          lexicons: body.lexicons
            ?.split(',')
            .map((s) => s.trim())
            .filter((s) => s !== ''),
          title: body.title,
          author: body.author,
          ...(body.replaces !== undefined ? { replaces: body.replaces } : {}),
          ...(body.chapters !== undefined ? { chapters: [...new Set(body.chapters.split(',').map(Number))] } : {}),
          ...once,
        });
      } else {
        const body = request.body as JobCreateBody;
        job = await jobs.create(caller, {
          // As on /v1/speak: a text that starts with <speak> is SSML unless text_type says otherwise.
          source: body.text_type ?? (isSsml(body.text, undefined) ? 'ssml' : 'text'),
          text: body.text,
          voiceId: body.voice_id,
          speed: body.speed,
          format: body.format,
          lexicons: body.lexicons,
          title: body.title,
          author: body.author,
          ...(body.replaces !== undefined ? { replaces: body.replaces } : {}),
          ...(body.chapters !== undefined ? { chapters: body.chapters } : {}),
          ...once,
        });
      }
      return reply.status(202).header('Location', `/v1/jobs/${job.id}`).send(job);
    },
  );

  r.get(
    '/v1/jobs',
    { ...jobRoute, schema: { summary: 'List your jobs', description: 'Newest first (the last 100).', response: { 200: JobList } } },
    async (request) => ({ jobs: await jobs.list(userOf(request)) }),
  );

  r.get(
    '/v1/jobs/:id',
    {
      ...jobRoute,
      schema: {
        summary: 'Get a job',
        description: 'Its status, progress, chapters (with their progress and, once done, their audio).',
        params: JobParams,
        response: { 200: Job },
      },
    },
    async (request) => jobs.get(userOf(request), request.params.id),
  );

  r.get(
    '/v1/jobs/:id/chapters',
    {
      ...jobRoute,
      schema: {
        summary: 'The chapter index',
        description: 'Titles, lengths and start times in the whole book (start times once the book is done).',
        params: JobParams,
        response: { 200: ChapterIndex },
      },
    },
    async (request) => {
      const job = await jobs.get(userOf(request), request.params.id);
      return {
        id: job.id,
        title: job.title,
        author: job.author,
        format: job.format,
        duration_seconds: job.duration_seconds,
        chapters: job.chapters,
      };
    },
  );

  r.get(
    '/v1/jobs/:id/events',
    {
      ...jobRoute,
      schema: {
        summary: 'Follow a job (Server-Sent Events)',
        description:
          'The job as JSON in a `data:` line at once and after each change (progress of each chapter); then an event named `done`, `failed` or `cancelled` ' +
          'with the final state, and the stream ends.',
        params: JobParams,
        response: { 200: { description: 'An event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } } },
      },
    },
    async (request, reply) => {
      const signal = hangUpSignal(reply);
      const events = jobs.watch(userOf(request), request.params.id, signal);
      // The first state is read before the status line, so an unknown job is still a JSON 404.
      const first = await events.next();
      async function* stream(): AsyncGenerator<string> {
        let id = 0;
        for (let next = first; !next.done; next = await events.next()) {
          const { event, data } = next.value;
          yield `${event ? `event: ${event}\n` : ''}id: ${++id}\ndata: ${JSON.stringify(data)}\n\n`;
        }
      }
      reply.type('text/event-stream; charset=utf-8').header('Cache-Control', 'no-store').header('X-Accel-Buffering', 'no');
      return reply.send(Readable.from(stream(), { objectMode: false }));
    },
  );

  r.get(
    '/v1/jobs/:id/audio',
    {
      ...jobRoute,
      schema: {
        summary: 'The whole book’s audio',
        description:
          'Once the job is done (409 before). MP3 carries ID3v2 chapters (CHAP, CTOC) and title/author tags. Supports Range. ' +
          'With `layout=chapters`: a zip (streamed, no Range) holding one file per chapter in order, named by number and title.',
        params: JobParams,
        querystring: JobAudioQuery,
        response: audioResponses,
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      if (request.query.layout === 'chapters') return sendDownload(reply, await jobs.outputs.chaptersZip(userOf(request), id));
      return sendJobAudio(app, request, reply, id, await jobs.bookAudio(userOf(request), id));
    },
  );

  r.get(
    '/v1/jobs/:id/epub',
    {
      ...jobRoute,
      schema: {
        summary: 'The book as a read-along EPUB 3',
        description:
          'Once an MP3 job is done (409 before, or for another format): each chapter’s text as XHTML with a Media Overlay (SMIL) per ' +
          'chapter whose clips are the rendered word timings, by sentence or by word (`granularity`), and the chapters’ MP3 inside.',
        params: JobParams,
        querystring: JobEpubQuery,
        response: {
          200: { description: 'The EPUB', content: { 'application/epub+zip': { schema: { type: 'string', format: 'binary' } } } },
        },
      },
    },
    async (request, reply) =>
      sendDownload(reply, await jobs.outputs.epub(userOf(request), request.params.id, request.query.granularity ?? 'sentence')),
  );

  r.get(
    '/v1/jobs/:id/chapters/:n/audio',
    {
      ...jobRoute,
      schema: {
        summary: 'One chapter’s audio',
        description: 'As soon as the chapter is done (409 before), in the job’s format. Supports Range.',
        params: ChapterParams,
        response: audioResponses,
      },
    },
    async (request, reply) => {
      const { id, n } = request.params;
      return sendJobAudio(app, request, reply, id, await jobs.chapterAudio(userOf(request), id, Number(n)));
    },
  );

  r.post(
    '/v1/jobs/:id/chapters/:n/render',
    {
      ...jobRoute,
      schema: {
        summary: 'Render one chapter again',
        description:
          'Once the job is done (409 before): renders chapter n again, with another `voice_id`, `speed` or `lexicons` when given (they stay the chapter’s own), ' +
          'then rebuilds the book’s files; the other chapters are kept as they are. Pieces whose content was stored before are reused. Answers 202 with the job, ' +
          'running again; follow it as a new job.',
        params: ChapterParams,
        body: ChapterRedoBody,
        response: { 202: Job },
      },
    },
    async (request, reply) => {
      const { id, n } = request.params;
      const body = request.body ?? {};
      const job = await jobs.redoChapter(speechCaller(request.principal), id, Number(n), {
        ...(body.voice_id !== undefined ? { voiceId: body.voice_id } : {}),
        ...(body.speed !== undefined ? { speed: body.speed } : {}),
        ...(body.lexicons !== undefined ? { lexicons: body.lexicons } : {}),
      });
      return reply.status(202).header('Location', `/v1/jobs/${job.id}`).send(job);
    },
  );

  r.delete(
    '/v1/jobs/:id',
    {
      ...jobRoute,
      schema: {
        summary: 'Cancel and delete a job',
        description: 'Stops its work on every node and deletes it with its audio.',
        params: JobParams,
        response: { 200: JobDeleted },
      },
    },
    async (request) => {
      await jobs.delete(userOf(request), request.params.id);
      return { id: request.params.id, deleted: true as const };
    },
  );
}
