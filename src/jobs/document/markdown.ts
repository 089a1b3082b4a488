// Markdown to blocks with marked's lexer: headings keep their rank, inline markup gives way to its words
// (a link to its text, an image to its description), and embedded HTML is read as HTML.
import { decodeHTML } from 'entities';
import { Lexer, type Token, type Tokens } from 'marked';
import { chapterLevel, tidy, type Block } from './blocks.ts';
import { tooMany } from './errors.ts';
import { htmlText } from './html.ts';

function inline(tokens: readonly Token[] | undefined): string {
  let out = '';
  for (const t of tokens ?? []) {
    switch (t.type) {
      case 'br':
        out += '\n';
        break;
      case 'image':
        out += (t as Tokens.Image).text;
        break;
      case 'html':
        out += htmlText(t.raw)
          .blocks.map((b) => b.text)
          .join(' ');
        break;
      case 'codespan':
      case 'escape':
        out += decodeHTML((t as Tokens.Codespan).text);
        break;
      default: {
        const nested = (t as { tokens?: Token[] }).tokens;
        out += nested && nested.length > 0 ? inline(nested) : decodeHTML((t as { text?: string }).text ?? '');
      }
    }
  }
  return out;
}

function collect(tokens: readonly Token[], blocks: Block[]): void {
  const push = (text: string, heading = 0): void => {
    const tidied = tidy(text);
    if (tidied !== '') blocks.push({ text: tidied, heading });
  };
  for (const t of tokens) {
    switch (t.type) {
      case 'heading':
        push(inline((t as Tokens.Heading).tokens), (t as Tokens.Heading).depth);
        break;
      case 'paragraph':
      case 'text':
        push(inline((t as Tokens.Paragraph).tokens ?? [t]));
        break;
      case 'code':
        push((t as Tokens.Code).text);
        break;
      case 'blockquote':
        collect((t as Tokens.Blockquote).tokens, blocks);
        break;
      case 'list':
        for (const item of (t as Tokens.List).items) collect(item.tokens, blocks);
        break;
      case 'table': {
        const table = t as Tokens.Table;
        push(table.header.map((c) => inline(c.tokens)).join(', '));
        for (const row of table.rows) push(row.map((c) => inline(c.tokens)).join(', '));
        break;
      }
      case 'html':
        blocks.push(...htmlText(t.raw).blocks);
        break;
      default:
        // space, hr, def: nothing to read.
        break;
    }
  }
}

/** The lines that matter to the count: a code fence, an ATX heading, or what may underline a setext heading. */
const HEADING_LINE = /^ {0,3}(?:> ?)*(?:(`{3,}|~{3,})|(#{1,6})(?:[ \t]|$)|(?:(=+)|-+)[ \t]*$)/gm;

/**
 * Headings per rank, counted by one regular expression over the text without lexing it (milliseconds a
 * megabyte, where the lexer takes seconds): ATX headings outside fenced code, and setext underlines below a line
 * of text.
 */
function headingCounts(markdown: string): Map<number, number> {
  const counts = new Map<number, number>();
  let fence: string | null = null;
  // Where the last heading or fence line ended: a setext underline right below one underlines nothing.
  let lastEnd = -2;
  for (const m of markdown.matchAll(HEADING_LINE)) {
    const [line, fenceMark, hashes, equals] = m;
    const at = m.index;
    if (fenceMark !== undefined) {
      if (fence === null) fence = fenceMark[0];
      else if (fenceMark[0] === fence) fence = null;
      lastEnd = at + line.length;
      continue;
    }
    if (fence !== null) continue;
    let rank = 0;
    if (hashes !== undefined) rank = hashes.length;
    else {
      // An underline counts when the line above holds text (and is not a heading itself).
      const above = markdown.slice(markdown.lastIndexOf('\n', at - 2) + 1, Math.max(0, at - 1));
      if (at > 0 && at - 1 !== lastEnd && above.trim() !== '') rank = equals !== undefined ? 1 : 2;
    }
    if (rank > 0) {
      counts.set(rank, (counts.get(rank) ?? 0) + 1);
      lastEnd = at + line.length;
    }
  }
  return counts;
}

/** Markdown to blocks; refused before it is lexed when its headings would make more than `maxChapters` chapters. */
export function markdownBlocks(markdown: string, maxChapters: number): Block[] {
  const counts = headingCounts(markdown);
  const level = chapterLevel(counts);
  if (level !== undefined && (counts.get(level) ?? 0) > maxChapters) throw tooMany('chapters', maxChapters);
  const blocks: Block[] = [];
  collect(new Lexer({ gfm: true }).lex(markdown), blocks);
  return blocks;
}
