// An SSML document cut into pieces that are each valid SSML on their own: a piece ends after a </p> or </s>
// once it holds enough text, and the elements still open there (<speak>, <voice>, <prosody>, ...) are closed
// and opened again around the next piece, so each piece is spoken exactly as that part of the whole would be.
import { Parser } from 'htmlparser2';
import { SaxesParser } from 'saxes';
import type { Break } from '../../synth/text/split.ts';
import { DocumentError } from './errors.ts';

export interface SsmlPiece {
  ssml: string;
  /** What ended the piece before: the pause the next one starts with. */
  pauseBefore: Break | null;
}

const escapeText = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string): string => escapeText(s).replace(/"/g, '&quot;');

const ENDS: Readonly<Record<string, Break>> = { p: 'paragraph', paragraph: 'paragraph', s: 'sentence', sentence: 'sentence' };

/** Refuses SSML that is not well-formed XML (htmlparser2, which cuts it, would quietly repair it). */
function checkWellFormed(ssml: string): void {
  const parser = new SaxesParser({ position: true });
  let failure: Error | null = null;
  parser.on('error', (err) => {
    failure ??= err;
  });
  parser.write(ssml).close();
  if (failure) throw new DocumentError('ssml_invalid', `The SSML is not well-formed XML: ${(failure as Error).message}`);
}

/** Cuts `ssml` after paragraphs or sentences into pieces of about `targetChars` characters of text. */
export function ssmlPieces(ssml: string, targetChars: number): SsmlPiece[] {
  checkWellFormed(ssml);
  const pieces: SsmlPiece[] = [];
  const open: { name: string; tag: string }[] = [];
  let out = '';
  let textChars = 0;
  let pauseBefore: Break | null = null;
  let sawRoot = false;

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (open.length === 0) sawRoot = true;
        const attrs = Object.entries(attribs)
          .map(([k, v]) => ` ${k}="${escapeAttr(v)}"`)
          .join('');
        const tag = `<${name}${attrs}>`;
        open.push({ name, tag });
        out += tag;
      },
      ontext(text) {
        if (open.length === 0) return;
        out += escapeText(text);
        textChars += text.trim().length;
      },
      onclosetag(name) {
        const i = open.map((e) => e.name).lastIndexOf(name);
        if (i < 0) return;
        for (const e of open.splice(i).reverse()) out += `</${e.name}>`;
        const end = ENDS[name];
        // Cut only inside the root, after enough text.
        if (end && open.length > 0 && textChars >= targetChars) {
          out += open
            .map((e) => `</${e.name}>`)
            .reverse()
            .join('');
          pieces.push({ ssml: out, pauseBefore });
          pauseBefore = end;
          out = open.map((e) => e.tag).join('');
          textChars = 0;
        }
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(ssml);
  parser.end();
  if (!sawRoot) return [{ ssml, pauseBefore: null }];
  if (textChars > 0 || pieces.length === 0) pieces.push({ ssml: out, pauseBefore });
  return pieces;
}
