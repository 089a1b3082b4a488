// Plain text to chapters: paragraphs are separated by blank lines, and a paragraph that starts with a line
// such as "Chapter 12", "CHAPTER XII", "Chapter Twelve: The Storm", "Part One" or "Prologue" starts a chapter.
import { tidy, type DocChapter } from './blocks.ts';
import { tooMany } from './errors.ts';

const NUMBER_WORDS =
  'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|' +
  'twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|final';
const NUMBERED = new RegExp(
  `^(?:chapter|chap\\.|part|book|volume|act)\\s+(?:\\d{1,4}|[ivxlcdm]{1,8}|(?:${NUMBER_WORDS})(?:[- ](?:${NUMBER_WORDS}))*)\\b\\.?(?:\\s*[:.\\-–—]\\s*.*|\\s+\\S.*)?$`,
  'i',
);
const NAMED =
  /^(?:prologue|epilogue|preface|foreword|introduction|afterword|interlude|appendix(?:\s+[a-z0-9]+)?)\b\.?(?:\s*[:.\-–—]\s*.*)?$/i;

/** The longest line that can be a chapter heading. */
const MAX_HEADING_CHARS = 80;

/** Whether a line is a chapter heading ("Chapter 12", "Part Two: Winter", "Epilogue"). */
export function isChapterLine(line: string): boolean {
  const l = line.trim();
  return l.length > 0 && l.length <= MAX_HEADING_CHARS && (NUMBERED.test(l) || NAMED.test(l));
}

/** A second short line without end punctuation right under a heading is its subtitle ("Chapter 3" / "The Storm"). */
function isSubtitle(line: string | undefined): line is string {
  return line !== undefined && line.length <= MAX_HEADING_CHARS && !/[.!?,;:]$/.test(line);
}

/**
 * The chapters of a plain text. A single short line before the first chapter heading is the book's title (it is
 * not read as a chapter of its own).
 */
export function plainChapters(text: string, fallbackTitle: string, maxChapters: number): { chapters: DocChapter[]; title: string | null } {
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t\u00a0]*\n/)
    .map(tidy)
    .filter((p) => p !== '');
  const chapters: DocChapter[] = [];
  let current: DocChapter | null = null;
  for (const para of paragraphs) {
    const lines = para.split('\n');
    if (isChapterLine(lines[0])) {
      // The heading (and a subtitle line under it) is a paragraph of its own, so a pause follows it.
      const headLines = isSubtitle(lines[1]) && lines.length === 2 ? lines : [lines[0]];
      const rest = lines.slice(headLines.length).join('\n');
      current = { title: headLines.join(': ').replace(/[:.]\s*:/, ':'), paragraphs: [headLines.join('\n')] };
      if (rest !== '') current.paragraphs.push(rest);
      chapters.push(current);
      // One more than the bound: a title line above the first chapter is not one.
      if (chapters.length > maxChapters + 1) throw tooMany('chapters', maxChapters);
      continue;
    }
    if (!current) {
      current = { title: fallbackTitle, paragraphs: [] };
      chapters.push(current);
    }
    current.paragraphs.push(para);
  }
  const [first, ...rest] = chapters;
  const titleLine =
    first?.paragraphs.length === 1 && !first.paragraphs[0].includes('\n') && first.title === fallbackTitle ? first.paragraphs[0] : null;
  if (rest.length > 0 && titleLine !== null && isSubtitle(titleLine)) return { chapters: rest, title: titleLine };
  if (chapters.length > maxChapters) throw tooMany('chapters', maxChapters);
  return { chapters, title: null };
}
