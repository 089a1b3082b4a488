// An ID3v2.3 tag with the book's title and author and its chapters (the ID3v2 Chapter Frame Addendum: a CTOC
// table of contents listing CHAP frames, each with its start and end time and a TIT2 title), which podcast and
// audiobook players, and ffprobe -show_chapters, read. Version 2.3 rather than 2.4: more players read it.
import { concatBytes as concat } from '../audio/encoders/types.ts';

export interface TagChapter {
  title: string;
  startMs: number;
  endMs: number;
}

export interface BookTag {
  title: string;
  author: string | null;
  chapters: readonly TagChapter[];
}

/** A CTOC lists at most 255 children (its count is one byte); longer books get a table of tables. */
const MAX_TOC_ENTRIES = 255;

const latin1 = (s: string): boolean => [...s].every((c) => c.charCodeAt(0) <= 0xff);

/** Text as an ID3 text field: ISO-8859-1 when it fits, else UTF-16 with a byte-order mark. */
function textField(text: string, terminated: boolean): Uint8Array {
  if (latin1(text)) {
    const out = new Uint8Array(1 + text.length + (terminated ? 1 : 0));
    for (let i = 0; i < text.length; i++) out[1 + i] = text.charCodeAt(i);
    return out;
  }
  const out = new Uint8Array(1 + 2 + text.length * 2 + (terminated ? 2 : 0));
  out[0] = 1;
  out[1] = 0xff;
  out[2] = 0xfe;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out[3 + 2 * i] = c & 0xff;
    out[4 + 2 * i] = c >> 8;
  }
  return out;
}

const ascii = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));
const terminated = (s: string): Uint8Array => concat([ascii(s), new Uint8Array(1)]);

function u32(v: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, v >>> 0);
  return out;
}

function frame(id: string, body: Uint8Array): Uint8Array {
  return concat([ascii(id), u32(body.length), new Uint8Array(2), body]);
}

const textFrame = (id: string, text: string): Uint8Array => frame(id, textField(text, false));

function chapFrame(id: string, c: TagChapter): Uint8Array {
  return frame(
    'CHAP',
    concat([
      terminated(id),
      u32(Math.round(c.startMs)),
      u32(Math.round(c.endMs)),
      u32(0xffffffff),
      u32(0xffffffff),
      textFrame('TIT2', c.title),
    ]),
  );
}

function ctocFrame(id: string, topLevel: boolean, children: readonly string[], title: string): Uint8Array {
  // Flags: 0x02 top-level, 0x01 ordered.
  return frame(
    'CTOC',
    concat([terminated(id), Uint8Array.of(topLevel ? 0x03 : 0x01, children.length), ...children.map(terminated), textFrame('TIT2', title)]),
  );
}

function syncsafe(n: number): Uint8Array {
  return Uint8Array.of((n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f, n & 0x7f);
}

export function buildChapterTag(book: BookTag): Uint8Array {
  const chapIds = book.chapters.map((_, i) => `chp${i}`);
  const frames: Uint8Array[] = [textFrame('TIT2', book.title), textFrame('TALB', book.title), textFrame('TCON', 'Audiobook')];
  if (book.author) frames.push(textFrame('TPE1', book.author));
  if (chapIds.length <= MAX_TOC_ENTRIES) {
    frames.push(ctocFrame('toc', true, chapIds, book.title));
  } else {
    const groups: string[][] = [];
    for (let i = 0; i < chapIds.length; i += MAX_TOC_ENTRIES) groups.push(chapIds.slice(i, i + MAX_TOC_ENTRIES));
    frames.push(
      ctocFrame(
        'toc',
        true,
        groups.map((_, i) => `toc${i}`),
        book.title,
      ),
    );
    groups.forEach((g, i) => frames.push(ctocFrame(`toc${i}`, false, g, `${book.title} (${i + 1})`)));
  }
  book.chapters.forEach((c, i) => frames.push(chapFrame(chapIds[i], c)));
  const body = concat(frames);
  return concat([ascii('ID3'), Uint8Array.of(3, 0, 0), syncsafe(body.length), body]);
}
