// The shape every document kind is read into before it becomes chapters: blocks of text in reading order
// (paragraphs, list items, headings), each one a paragraph of speech.
import { tooMany } from './errors.ts';

export interface Block {
  text: string;
  /** 1-6 for a heading (its rank), 0 for anything else. */
  heading: number;
}

/** A chapter's title and its paragraphs (its heading, when it has one, is the first: it is read aloud too). */
export interface DocChapter {
  title: string;
  paragraphs: string[];
}

/** Lines of a block trimmed, empty lines dropped, runs of spaces made one. */
export function tidy(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/[\s\u00a0]+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}

/** The rank of the headings that start chapters: the highest that occurs at least twice. */
export function chapterLevel(counts: ReadonlyMap<number, number>): number | undefined {
  return [1, 2, 3, 4, 5, 6].find((l) => (counts.get(l) ?? 0) >= 2);
}

/**
 * Chapters from headings: the highest rank that occurs at least twice starts a chapter at each of its headings
 * (a lone h1 above several h2 is the book's title, and the h2 are its chapters). Blocks before the first such
 * heading become a chapter of their own when they hold text beyond a title; a document without repeated headings
 * is one chapter, titled by its first heading.
 */
export function chaptersFromHeadings(
  blocks: readonly Block[],
  fallbackTitle: string,
  maxChapters: number,
): { chapters: DocChapter[]; title: string | null } {
  const counts = new Map<number, number>();
  for (const b of blocks) if (b.heading > 0) counts.set(b.heading, (counts.get(b.heading) ?? 0) + 1);
  const level = chapterLevel(counts);
  // Refused before a chapter is built: every heading of the chapters' rank starts one.
  if (level !== undefined && (counts.get(level) ?? 0) > maxChapters) throw tooMany('chapters', maxChapters);
  const firstHeading = blocks.find((b) => b.heading > 0)?.text ?? null;
  if (level === undefined) {
    const paragraphs = blocks.map((b) => b.text);
    return { chapters: paragraphs.length > 0 ? [{ title: firstHeading ?? fallbackTitle, paragraphs }] : [], title: firstHeading };
  }
  // A single heading of a higher rank than the chapters' names the book.
  const above = blocks.filter((b) => b.heading > 0 && b.heading < level);
  const title = above.length === 1 ? above[0].text : null;
  const chapters: DocChapter[] = [];
  let current: DocChapter | null = null;
  const front: string[] = [];
  for (const b of blocks) {
    if (b.heading === level) {
      current = { title: b.text.replace(/\n/g, ' '), paragraphs: [b.text] };
      chapters.push(current);
    } else if (current) {
      current.paragraphs.push(b.text);
    } else if (!(title !== null && b.text === title)) {
      front.push(b.text);
    }
  }
  if (front.length > 0) chapters.unshift({ title: title ?? fallbackTitle, paragraphs: front });
  if (chapters.length > maxChapters) throw tooMany('chapters', maxChapters);
  return { chapters, title };
}
