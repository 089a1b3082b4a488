// HTML and XHTML (an EPUB's chapters) to blocks of text, with htmlparser2: forgiving of the HTML people write
// and of XHTML's own forms (self-closing tags, CDATA), and it decodes every named entity.
import { Parser } from 'htmlparser2';
import { tidy, type Block } from './blocks.ts';
import { DocumentError } from './errors.ts';

/** Deepest nesting of elements a document may have (real books nest a few dozen deep). */
export const MAX_NESTING = 1_000;

export function tooDeep(): DocumentError {
  return new DocumentError('document_too_large', `the document nests elements more than ${MAX_NESTING} deep; it was refused`);
}

/** Elements whose text is a paragraph of its own (its start and end break the flow). */
const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'caption',
  'center',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'li',
  'main',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
]);

/** Elements whose text is never read: code and styling, navigation, and what has no words. */
const SKIP = new Set([
  'script',
  'style',
  'head',
  'nav',
  'noscript',
  'template',
  'svg',
  'math',
  'object',
  'iframe',
  'button',
  'select',
  'textarea',
  'rt',
  'rp',
]);

/** EPUB structural semantics of notes and page markers: a listener would hear stray numbers. */
const SKIP_EPUB_TYPES = /\b(footnote|endnote|rearnote|noteref|pagebreak|toc|landmarks|page-list)\b/;

export interface HtmlText {
  /** The document's <title>, if any. */
  title: string | null;
  blocks: Block[];
  /** For each element id: the index of the block it starts in (EPUB tables of contents point at them). */
  anchors: Map<string, number>;
}

/** Reads the text of an HTML or XHTML document in reading order. */
export function htmlText(html: string): HtmlText {
  const blocks: Block[] = [];
  const anchors = new Map<string, number>();
  let buffer = '';
  let heading = 0;
  let skipDepth = 0;
  let title: string | null = null;
  let inTitle = false;
  const stack: { name: string; skip: boolean }[] = [];
  // How many of each element are open: a closing tag of one that is not open is skipped without a search, and
  // <head> is known open without one, so each tag costs the same however deep the document nests.
  const open = new Map<string, number>();

  const flush = (): void => {
    const text = tidy(buffer);
    buffer = '';
    if (text !== '') blocks.push({ text, heading });
    heading = 0;
  };

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const skip =
          SKIP.has(name) ||
          attribs.hidden !== undefined ||
          attribs['aria-hidden'] === 'true' ||
          SKIP_EPUB_TYPES.test(attribs['epub:type'] ?? '');
        stack.push({ name, skip });
        if (stack.length > MAX_NESTING) throw tooDeep();
        open.set(name, (open.get(name) ?? 0) + 1);
        if (name === 'title' && skipDepth <= 1 && (open.get('head') ?? 0) > 0) inTitle = true;
        if (skip) skipDepth++;
        if (skipDepth > 0) return;
        if (BLOCK.has(name)) flush();
        if (/^h[1-6]$/.test(name)) heading = Number(name[1]);
        if (name === 'br') buffer += '\n';
        // A table cell ends like a clause.
        if ((name === 'td' || name === 'th') && buffer.trim() !== '') buffer += ', ';
        const id = attribs.id;
        if (id !== undefined && !anchors.has(id)) anchors.set(id, blocks.length);
      },
      ontext(text) {
        if (inTitle) title = (title ?? '') + text;
        if (skipDepth > 0) return;
        buffer += text;
      },
      onclosetag(name) {
        // htmlparser2 closes implied elements itself; pop to the matching one.
        if ((open.get(name) ?? 0) > 0) {
          for (let i = stack.length - 1; i >= 0; i--) {
            if (stack[i].name !== name) continue;
            for (const e of stack.splice(i)) {
              if (e.skip) skipDepth--;
              open.set(e.name, (open.get(e.name) ?? 1) - 1);
            }
            break;
          }
        }
        if (name === 'title') inTitle = false;
        if (skipDepth > 0) return;
        if (BLOCK.has(name)) flush();
      },
    },
    { decodeEntities: true, recognizeSelfClosing: true, recognizeCDATA: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  flush();
  const t = title === null ? null : tidy(title as string).replace(/\n/g, ' ');
  return { title: t === '' ? null : t, blocks, anchors };
}
