// A finished job's downloads beyond the one book file: every chapter's audio as a zip (in order, named by number
// and title), and a read-along EPUB 3 (the book's text with Media Overlays and the chapters' MP3 inside).
// Both are streamed from the stored audio as the client reads them.
import { AppError } from '../../errors.ts';
import { FORMATS } from '../../audio/encoders/index.ts';
import { STREAM_SAMPLE_RATE, type SpeechFormat } from '../../schemas/speech.ts';
import type { SpeechService } from '../../speech/speech-service.ts';
import { safeName } from '../file-names.ts';
import { chapterPart, type ChapterRow, type JobRow, type JobStore } from '../job-store.ts';
import {
  chapterFiles,
  CONTAINER_XML,
  EPUB_STYLE,
  navDocument,
  packageDocument,
  type EpubBook,
  type EpubChapterFiles,
  type OverlayGranularity,
} from './epub-overlay.ts';
import { zipStream, type ZipEntry } from './zip-stream.ts';

export interface JobDownload {
  fileName: string;
  contentType: string;
  body: AsyncGenerator<Uint8Array>;
}

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

export class JobOutputs {
  constructor(
    private readonly store: JobStore,
    private readonly speech: SpeechService,
  ) {}

  /** The job with its chapters, once its book is done (404 for another's or a missing job, 409 before). */
  private async finished(userId: string, id: string): Promise<{ job: JobRow; chapters: ChapterRow[] }> {
    const job = await this.store.owned(userId, id);
    if (!job) throw new AppError('job_not_found', `No job "${id.slice(0, 100)}"`);
    if (job.status !== 'done') throw new AppError('audio_not_ready', `The book is not rendered yet (the job is ${job.status})`);
    const chapters = await this.store.chapters(id);
    if (chapters.some((c) => c.audio_attempt === null)) throw new AppError('audio_not_ready', 'A chapter is being rendered again');
    return { job, chapters };
  }

  private chapterAudio(jobId: string, c: ChapterRow): AsyncGenerator<Uint8Array> {
    return this.store.readAudio(jobId, chapterPart(c.n), c.audio_attempt as string, 0, Number(c.audio_bytes ?? 0));
  }

  /** GET /v1/jobs/{id}/audio?layout=chapters: one file per chapter, in order, in the job's format. */
  async chaptersZip(userId: string, id: string): Promise<JobDownload> {
    const { job, chapters } = await this.finished(userId, id);
    const { extension } = FORMATS[job.format as SpeechFormat];
    const width = Math.max(2, String(chapters.length).length);
    const entries: ZipEntry[] = chapters.map((c) => ({
      name: `${String(c.n + 1).padStart(width, '0')} ${safeName(c.title, 'chapter')}.${extension}`,
      data: this.chapterAudio(id, c),
    }));
    return {
      fileName: `${safeName(job.title, 'book')}.zip`,
      contentType: 'application/zip',
      body: zipStream(entries, new Date(job.finished_at ?? job.created_at)),
    };
  }

  /** GET /v1/jobs/{id}/epub: the read-along book. Its audio is the chapters' MP3, so the job must be MP3. */
  async epub(userId: string, id: string, granularity: OverlayGranularity): Promise<JobDownload> {
    const { job, chapters } = await this.finished(userId, id);
    if (job.format !== 'mp3') {
      throw new AppError(
        'epub_format_unsupported',
        `A read-along EPUB carries MP3 audio (what every reading system plays); this job was rendered as ${job.format}: submit it again with format mp3`,
      );
    }
    const modified = new Date(job.finished_at ?? job.created_at);
    const book: EpubBook = {
      id: job.id,
      title: job.title,
      author: job.author,
      language: (await this.speech.voiceLanguage(userId, job.voice_id)) ?? 'en',
      narrator: `Voxsmith voice ${job.voice_id}`,
      modified,
    };
    const { store } = this;
    const audio = (c: ChapterRow): AsyncGenerator<Uint8Array> => this.chapterAudio(id, c);
    // The package document comes last: it names every chapter's overlay and its length, known as each is built.
    async function* entries(): AsyncGenerator<ZipEntry> {
      // The OCF container's first entry, stored, with nothing before its content.
      yield { name: 'mimetype', data: text('application/epub+zip') };
      yield { name: 'META-INF/container.xml', data: text(CONTAINER_XML), deflate: true };
      const built: EpubChapterFiles[] = [];
      for (const c of chapters) {
        const files = chapterFiles(
          book,
          { number: c.n + 1, title: c.title, seconds: Number(c.samples ?? 0) / STREAM_SAMPLE_RATE, pieces: await store.chapterText(id, c) },
          granularity,
        );
        built.push(files);
        yield { name: `EPUB/${files.xhtmlName}`, data: text(files.xhtml), deflate: true };
        if (files.smil !== null) yield { name: `EPUB/${files.smilName}`, data: text(files.smil), deflate: true };
        yield { name: `EPUB/${files.audioName}`, data: audio(c) };
      }
      yield { name: 'EPUB/nav.xhtml', data: text(navDocument(book, built)), deflate: true };
      yield { name: 'EPUB/style.css', data: text(EPUB_STYLE), deflate: true };
      yield { name: 'EPUB/package.opf', data: text(packageDocument(book, built)), deflate: true };
    }
    return { fileName: `${safeName(job.title, 'book')}.epub`, contentType: 'application/epub+zip', body: zipStream(entries(), modified) };
  }
}
