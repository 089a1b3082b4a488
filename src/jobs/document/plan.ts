// A document in, the job's plan out: its chapters, and the pieces they are rendered in (paragraphs grouped to
// a few hundred characters, so each piece renders in a second or two and a crash loses little). Pure: it runs
// in the document thread (document-worker.ts), and in tests.
import type { JobSource } from '../../schemas/jobs.ts';
import type { LexiconEntry } from '../../synth/text/lexicon.ts';
import { parseSsml, SsmlError } from '../../synth/text/ssml.ts';
import { spokenLength } from '../../synth/text/script.ts';
import { splitSentences, type Break } from '../../synth/text/split.ts';
import { pieceAudio, plainPieceScript, type PieceAudio } from './audio-estimate.ts';
import { chaptersFromHeadings, type DocChapter } from './blocks.ts';
import { readEpub } from './epub.ts';
import { DocumentError, tooMany } from './errors.ts';
import { htmlText } from './html.ts';
import { markdownBlocks } from './markdown.ts';
import { plainChapters } from './plain.ts';
import { ssmlPieces } from './ssml.ts';

/** A piece is closed once it holds this many characters... */
export const TARGET_PIECE_CHARS = 500;
/**
 * ...and never grows past this many, which keeps it under the long-reading threshold (LONG_READING_CHARS), so
 * a piece's sentences are spoken whole, as /v1/speak speaks a chapter of that size.
 */
export const MAX_PIECE_CHARS = 900;

export interface DocumentInput {
  source: JobSource;
  /** The document as text (JSON bodies), or its bytes (uploads). */
  text?: string;
  bytes?: Uint8Array;
  /** The client's title and author, which win over the document's own. */
  title?: string;
  author?: string;
  /** The title when neither the client nor the document has one (an upload's file name). */
  fallbackTitle: string;
  /** Most bytes an EPUB may unpack to. */
  maxUnpackedBytes: number;
  /** Spoken characters the job may hold (MAX_JOB_CHARS). */
  maxChars: number;
  /** Spoken characters one synthesis may hold (MAX_TEXT_CHARS): no piece may be longer. */
  maxPieceChars: number;
  /** Chapters the job may hold (MAX_JOB_CHAPTERS). */
  maxChapters: number;
  /** Pieces the job may be rendered in (MAX_JOB_PIECES). */
  maxPieces: number;
  /** The lexicon rules the job speaks with: their aliases count in the audio it will hold. */
  lexicon?: LexiconEntry[];
}

export interface PlannedPiece {
  chapter: number;
  text: string;
  ssml: boolean;
  characters: number;
  /** The pause the piece starts with (what ended the one before it in its chapter); null for a chapter's first. */
  pauseBefore: Break | null;
}

export interface PlannedChapter {
  title: string;
  characters: number;
  firstPiece: number;
  pieces: number;
}

export interface JobPlan {
  title: string;
  author: string | null;
  characters: number;
  /** What the pieces will say and the silence they ask for, all together (audio-estimate.ts). */
  audio: PieceAudio;
  chapters: PlannedChapter[];
  pieces: PlannedPiece[];
}

function decodeText(input: DocumentInput): string {
  if (input.text !== undefined) return input.text;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(input.bytes ?? new Uint8Array(0));
  } catch {
    throw new DocumentError('invalid_document', 'The file is not UTF-8 text');
  }
}

/** One chapter's paragraphs grouped into pieces; a paragraph too long for one piece is cut between sentences. */
function plainPieces(paragraphs: readonly string[], chapter: number, maxChars: number): PlannedPiece[] {
  const pieces: PlannedPiece[] = [];
  const target = Math.min(TARGET_PIECE_CHARS, maxChars);
  let parts: string[] = [];
  let joiner = '\n\n';
  let length = 0;
  let pauseBefore: Break | null = null;
  const close = (ending: Break): void => {
    if (parts.length === 0) return;
    const text = parts.join(joiner);
    pieces.push({ chapter, text, ssml: false, characters: text.length, pauseBefore });
    pauseBefore = ending;
    parts = [];
    length = 0;
    joiner = '\n\n';
  };
  for (const para of paragraphs) {
    if (para.length > maxChars) {
      close('paragraph');
      const sentences = splitSentences(para, { maxChars });
      joiner = ' ';
      for (const [i, s] of sentences.entries()) {
        if (length > 0 && length + 1 + s.text.length > maxChars) close(sentences[i - 1].break);
        joiner = ' ';
        parts.push(s.text);
        length += s.text.length + 1;
        if (length >= target && i < sentences.length - 1) close(s.break);
      }
      close('paragraph');
      continue;
    }
    if (length > 0 && length + 2 + para.length > maxChars) close('paragraph');
    parts.push(para);
    length += para.length + 2;
    if (length >= target) close('paragraph');
  }
  close('paragraph');
  return pieces;
}

function ssmlChapterPieces(ssml: string, maxPieceChars: number): PlannedPiece[] {
  return ssmlPieces(ssml, Math.min(TARGET_PIECE_CHARS, maxPieceChars)).map((p, i) => {
    let characters: number;
    try {
      characters = spokenLength(parseSsml(p.ssml));
    } catch (err) {
      if (err instanceof SsmlError)
        throw new DocumentError('ssml_invalid', i === 0 ? err.message : `${err.message} (in the part from paragraph ${i + 1} on)`);
      throw err;
    }
    if (characters > maxPieceChars) {
      throw new DocumentError(
        'text_too_long',
        `a paragraph of the SSML speaks ${characters} characters, more than one synthesis may (MAX_TEXT_CHARS ${maxPieceChars}); split it with <p> or <s>`,
      );
    }
    return { chapter: 0, text: p.ssml, ssml: true, characters, pauseBefore: p.pauseBefore };
  });
}

/** The audio of every piece together: breaks and expansions included, as each piece will be spoken. */
function planAudio(pieces: readonly PlannedPiece[], lexicon: readonly LexiconEntry[] | undefined): PieceAudio {
  const total: PieceAudio = { breakSeconds: 0, expandedChars: 0 };
  for (const [i, p] of pieces.entries()) {
    let audio: PieceAudio;
    try {
      audio = pieceAudio(p.ssml ? parseSsml(p.text) : plainPieceScript(p.text), lexicon);
    } catch (err) {
      // A plain text's <break> tags are read as SSML's; a bad one would fail the piece once rendered.
      if (err instanceof SsmlError) throw new DocumentError('ssml_invalid', `${err.message} (in piece ${i + 1})`);
      throw err;
    }
    total.breakSeconds += audio.breakSeconds;
    total.expandedChars += audio.expandedChars;
  }
  return total;
}

export function planDocument(input: DocumentInput): JobPlan {
  const maxPiece = Math.min(MAX_PIECE_CHARS, input.maxPieceChars);
  let title: string | null = null;
  let author: string | null = null;
  let chapters: DocChapter[] = [];
  let pieces: PlannedPiece[] | null = null;
  const fallback = input.title ?? input.fallbackTitle;
  switch (input.source) {
    case 'epub': {
      if (!input.bytes) throw new DocumentError('validation', 'An EPUB comes as a file upload');
      const book = readEpub(input.bytes, input.maxUnpackedBytes, fallback, input.maxChapters);
      ({ title, author, chapters } = book);
      break;
    }
    case 'html': {
      const doc = htmlText(decodeText(input));
      const read = chaptersFromHeadings(doc.blocks, doc.title ?? fallback, input.maxChapters);
      chapters = read.chapters;
      title = doc.title ?? read.title;
      break;
    }
    case 'markdown': {
      const read = chaptersFromHeadings(markdownBlocks(decodeText(input), input.maxChapters), fallback, input.maxChapters);
      chapters = read.chapters;
      title = read.title;
      break;
    }
    case 'text':
      ({ chapters, title } = plainChapters(decodeText(input), fallback, input.maxChapters));
      break;
    case 'ssml': {
      const text = decodeText(input).trim();
      pieces = ssmlChapterPieces(text, input.maxPieceChars);
      if (pieces.length > input.maxPieces) throw tooMany('pieces', input.maxPieces);
      chapters = [{ title: fallback, paragraphs: [] }];
      break;
    }
  }
  if (pieces === null) {
    pieces = [];
    for (const [i, c] of chapters.entries()) {
      for (const p of plainPieces(c.paragraphs, i, maxPiece)) pieces.push(p);
      if (pieces.length > input.maxPieces) throw tooMany('pieces', input.maxPieces);
    }
  }
  // Chapters with nothing to say (a heading alone is still said) are left out, and the rest numbered anew.
  const spoken = new Set(pieces.filter((p) => p.characters > 0).map((p) => p.chapter));
  const renumber = new Map([...spoken].sort((a, b) => a - b).map((old, i) => [old, i]));
  const finalPieces = pieces.filter((p) => renumber.has(p.chapter)).map((p) => ({ ...p, chapter: renumber.get(p.chapter) as number }));
  const finalChapters: PlannedChapter[] = [...renumber.keys()].map((old) => ({
    title: chapters[old].title.slice(0, 500),
    characters: 0,
    firstPiece: -1,
    pieces: 0,
  }));
  for (const [n, p] of finalPieces.entries()) {
    const c = finalChapters[p.chapter];
    if (c.firstPiece < 0) c.firstPiece = n;
    c.pieces++;
    c.characters += p.characters;
  }
  const characters = finalPieces.reduce((n, p) => n + p.characters, 0);
  if (characters === 0) throw new DocumentError('invalid_document', 'The document holds no text to read');
  if (characters > input.maxChars)
    throw new DocumentError('text_too_long', `the document is ${characters} characters; the limit is ${input.maxChars} (MAX_JOB_CHARS)`);
  return {
    audio: planAudio(finalPieces, input.lexicon),
    title: (input.title ?? title ?? input.fallbackTitle).slice(0, 500),
    author: (input.author ?? author)?.slice(0, 500) ?? null,
    characters,
    chapters: finalChapters,
    pieces: finalPieces,
  };
}
