// Markdown to blocks with marked's lexer: headings keep their rank, inline markup gives way to its words
// (a link to its text, an image to its description), and embedded HTML is read as HTML.
import { decodeHTML } from 'entities';
import { Lexer, type Token, type Tokens } from 'marked';
import { tidy, type Block } from './blocks.ts';
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

export function markdownBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  collect(new Lexer({ gfm: true }).lex(markdown), blocks);
  return blocks;
}
