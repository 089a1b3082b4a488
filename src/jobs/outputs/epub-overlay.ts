// The text side of a read-along EPUB 3: each chapter as XHTML with an id on every sentence (and word), its
// Media Overlay (SMIL) whose clips come from the word timings the pieces were rendered with, and the package
// and navigation documents. Pure: job-outputs.ts reads the job and streams the package.
import { STREAM_SAMPLE_RATE } from '../../schemas/speech.ts';
import type { SpokenPiece } from '../job-store.ts';

export type OverlayGranularity = 'sentence' | 'word';

export interface EpubBook {
  id: string;
  title: string;
  author: string | null;
  language: string;
  narrator: string;
  /** When the book was finished: the package's dcterms:modified. */
  modified: Date;
}

/** A chapter's files, named as the package holds them. */
export interface EpubChapterFiles {
  xhtmlName: string;
  xhtml: string;
  /** Null when the engine reported no word timings for it (then the chapter is text and audio only). */
  smilName: string;
  smil: string | null;
  audioName: string;
  /** Milliseconds the overlay plays (its first clip to the chapter's end). */
  overlayMs: number;
  title: string;
}

/** The class a reading system puts on the element being read (declared in the package, styled in style.css). */
const ACTIVE_CLASS = 'voxsmith-active';

export const EPUB_STYLE = `body { font-family: serif; line-height: 1.5; margin: 1em; }
h1 { font-size: 1.4em; }
.${ACTIVE_CLASS} { background-color: #ffe680; color: #000; }
`;

export const CONTAINER_XML = `<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles>
    <rootfile full-path="EPUB/package.opf" media-type="application/oebps-package+xml"/>
  </rootfiles>
</container>
`;

const xml = (s: string): string =>
  s
    .replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'))
    // Characters XML 1.0 does not allow at all.
    .replace(/[^\t\n\r\u0020-\uFFFD\u{10000}-\u{10FFFF}]/gu, '');

/** Seconds as a SMIL clock value. */
const clock = (seconds: number): string => `${Math.max(0, seconds).toFixed(3)}s`;

/** Milliseconds as a full clock value (h:mm:ss.fff), as media:duration is written. */
export function fullClock(ms: number): string {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const s = (ms % 60_000) / 1000;
  return `${h}:${String(m).padStart(2, '0')}:${s.toFixed(3).padStart(6, '0')}`;
}

const SSML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * The text a piece shows: SSML without its tags and with its entities read. `at[i]` is the offset in the
 * piece's source of the i-th character shown (and `at[length]` its end), so word spans, which are offsets in the
 * source, land on the text shown.
 */
function shownText(piece: SpokenPiece): { text: string; at: number[] } {
  const src = piece.text;
  if (!piece.ssml) return { text: src, at: Array.from({ length: src.length + 1 }, (_, i) => i) };
  let text = '';
  const at: number[] = [];
  for (let i = 0; i < src.length;) {
    if (src[i] === '<') {
      const close = src.indexOf('>', i);
      i = close < 0 ? src.length : close + 1;
      continue;
    }
    const entity = src[i] === '&' ? /^&(#x[0-9a-f]+|#\d+|[a-z]+);/i.exec(src.slice(i, i + 12)) : null;
    if (entity) {
      const name = entity[1];
      const ch = name.startsWith('#x')
        ? String.fromCodePoint(parseInt(name.slice(2), 16))
        : name.startsWith('#')
          ? String.fromCodePoint(Number(name.slice(1)))
          : (SSML_ENTITIES[name] ?? entity[0]);
      for (const c of ch) {
        text += c;
        at.push(i);
      }
      i += entity[0].length;
      continue;
    }
    text += src[i];
    at.push(i);
    i++;
  }
  at.push(src.length);
  return { text, at };
}

/** Index of the first shown character at or after source offset `offset`. */
function shownIndex(at: readonly number[], offset: number): number {
  let lo = 0;
  let hi = at.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (at[mid] < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

interface Timed {
  id: string;
  /** Seconds from the start of the chapter's audio. */
  start: number;
}

interface Sentence extends Timed {
  words: Timed[];
}

/** Builds one chapter's XHTML and SMIL. `number` counts from 1; `seconds` is the chapter audio's length. */
export function chapterFiles(
  book: EpubBook,
  chapter: { number: number; title: string; seconds: number; pieces: readonly SpokenPiece[] },
  granularity: OverlayGranularity,
): EpubChapterFiles {
  const nn = String(chapter.number).padStart(3, '0');
  const xhtmlName = `chapter-${nn}.xhtml`;
  const smilName = `chapter-${nn}.smil`;
  const audioName = `audio/chapter-${nn}.mp3`;
  const c = `c${chapter.number}`;
  const segmenter = new Intl.Segmenter(book.language, { granularity: 'sentence' });
  const sentences: Sentence[] = [];
  const blocks: string[] = [];
  let pieceStart = 0;
  let headingDone = false;
  let wordCount = 0;
  for (const piece of chapter.pieces) {
    const { text, at } = shownText(piece);
    // The piece's words on the text shown, in order.
    const words = piece.words
      .map((w) => ({ from: shownIndex(at, w.offset), to: shownIndex(at, w.offset + w.length), start: pieceStart + w.start }))
      .filter((w) => w.to > w.from)
      .sort((a, b) => a.from - b.from);
    let wi = 0;
    // Paragraphs are lines; a sentence never runs past one (a line break ends a sentence).
    const lineBreak = /\n+/g;
    let lineFrom = 0;
    for (;;) {
      const m = lineBreak.exec(text);
      const lineTo = m ? m.index : text.length;
      const line = text.slice(lineFrom, lineTo);
      if (line.trim() !== '') {
        let html = '';
        for (const seg of segmenter.segment(line)) {
          const from = lineFrom + seg.index;
          const to = from + seg.segment.length;
          while (wi < words.length && words[wi].from < from) wi++;
          const inside: { from: number; to: number; start: number }[] = [];
          while (wi < words.length && words[wi].from < to) inside.push(words[wi++]);
          if (inside.length === 0) {
            html += xml(seg.segment);
            continue;
          }
          const sentence: Sentence = { id: `${c}s${sentences.length + 1}`, start: inside[0].start, words: [] };
          sentences.push(sentence);
          let body = '';
          let cursor = from;
          for (const w of inside) {
            const wFrom = Math.max(w.from, cursor);
            const wTo = Math.min(w.to, to);
            if (wTo <= wFrom) continue;
            body += xml(text.slice(cursor, wFrom));
            if (granularity === 'word') {
              const id = `${c}w${++wordCount}`;
              sentence.words.push({ id, start: w.start });
              body += `<span id="${id}">${xml(text.slice(wFrom, wTo))}</span>`;
            } else {
              body += xml(text.slice(wFrom, wTo));
            }
            cursor = wTo;
          }
          body += xml(text.slice(cursor, to));
          // Trailing spaces stay outside the highlighted sentence.
          const trimmed = body.replace(/\s+$/, '');
          html += `<span id="${sentence.id}">${trimmed}</span>${body.slice(trimmed.length)}`;
        }
        const isHeading = !headingDone && line.trim() === chapter.title.trim();
        blocks.push(isHeading ? `<h1>${html.trim()}</h1>` : `<p>${html.trim()}</p>`);
        headingDone = true;
      }
      if (!m) break;
      lineFrom = m.index + m[0].length;
    }
    pieceStart += piece.samples / STREAM_SAMPLE_RATE;
  }
  const end = Math.max(pieceStart, chapter.seconds);
  const xhtml = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="${xml(book.language)}" lang="${xml(book.language)}">
<head>
<title>${xml(chapter.title)}</title>
<link rel="stylesheet" type="text/css" href="style.css"/>
</head>
<body>
<section id="${c}">
${headingDone && blocks[0]?.startsWith('<h1>') ? '' : `<h1>${xml(chapter.title)}</h1>\n`}${blocks.join('\n')}
</section>
</body>
</html>
`;
  if (sentences.length === 0) return { xhtmlName, xhtml, smilName, smil: null, audioName, overlayMs: 0, title: chapter.title };
  // Clips run from one sentence's (or word's) first sound to the next one's, so the pauses between are heard.
  const clips: string[] = [];
  const par = (id: string, start: number, stop: number, indent: string): string =>
    `${indent}<par id="p-${id}"><text src="${xhtmlName}#${id}"/><audio src="${audioName}" clipBegin="${clock(start)}" clipEnd="${clock(Math.max(stop, start + 0.001))}"/></par>`;
  const starts = granularity === 'word' ? sentences.flatMap((s) => s.words) : sentences;
  const next = new Map<string, number>();
  starts.forEach((t, i) => next.set(t.id, starts[i + 1]?.start ?? end));
  for (const [i, s] of sentences.entries()) {
    const stop = sentences[i + 1]?.start ?? end;
    if (granularity === 'sentence' || s.words.length === 0) {
      clips.push(par(s.id, s.start, stop, '    '));
      continue;
    }
    clips.push(`    <seq id="q-${s.id}" epub:textref="${xhtmlName}#${s.id}">`);
    for (const w of s.words) clips.push(par(w.id, w.start, next.get(w.id) ?? end, '      '));
    clips.push('    </seq>');
  }
  const smil = `<?xml version="1.0" encoding="UTF-8"?>
<smil xmlns="http://www.w3.org/ns/SMIL" xmlns:epub="http://www.idpf.org/2007/ops" version="3.0">
  <body>
  <seq id="q-${c}" epub:textref="${xhtmlName}#${c}">
${clips.join('\n')}
  </seq>
  </body>
</smil>
`;
  const overlayMs = Math.round((end - sentences[0].start) * 1000);
  return { xhtmlName, xhtml, smilName, smil, audioName, overlayMs, title: chapter.title };
}

export function navDocument(book: EpubBook, chapters: readonly EpubChapterFiles[]): string {
  const items = chapters.map((c) => `      <li><a href="${c.xhtmlName}">${xml(c.title)}</a></li>`).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="${xml(book.language)}" lang="${xml(book.language)}">
<head>
<title>${xml(book.title)}</title>
</head>
<body>
  <nav epub:type="toc" id="toc">
    <h1>${xml(book.title)}</h1>
    <ol>
${items}
    </ol>
  </nav>
</body>
</html>
`;
}

export function packageDocument(book: EpubBook, chapters: readonly EpubChapterFiles[]): string {
  const nn = (i: number): string => String(i + 1).padStart(3, '0');
  const overlays = chapters.map((c, i) => ({ c, id: `mo-${nn(i)}` })).filter(({ c }) => c.smil !== null);
  const totalMs = overlays.reduce((sum, { c }) => sum + c.overlayMs, 0);
  const modified = book.modified.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const meta = [
    `    <dc:identifier id="book-id">urn:voxsmith:${xml(book.id)}</dc:identifier>`,
    `    <dc:title>${xml(book.title)}</dc:title>`,
    `    <dc:language>${xml(book.language)}</dc:language>`,
    ...(book.author ? [`    <dc:creator>${xml(book.author)}</dc:creator>`] : []),
    `    <meta property="dcterms:modified">${modified}</meta>`,
    ...(overlays.length > 0
      ? [
          `    <meta property="media:duration">${fullClock(totalMs)}</meta>`,
          ...overlays.map(({ c, id }) => `    <meta property="media:duration" refines="#${id}">${fullClock(c.overlayMs)}</meta>`),
          `    <meta property="media:narrator">${xml(book.narrator)}</meta>`,
          `    <meta property="media:active-class">${ACTIVE_CLASS}</meta>`,
        ]
      : []),
  ];
  const items = [
    '    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>',
    '    <item id="css" href="style.css" media-type="text/css"/>',
    ...chapters.flatMap((c, i) => [
      `    <item id="c-${nn(i)}" href="${c.xhtmlName}" media-type="application/xhtml+xml"${c.smil === null ? '' : ` media-overlay="mo-${nn(i)}"`}/>`,
      ...(c.smil === null ? [] : [`    <item id="mo-${nn(i)}" href="${c.smilName}" media-type="application/smil+xml"/>`]),
      `    <item id="a-${nn(i)}" href="${c.audioName}" media-type="audio/mpeg"/>`,
    ]),
  ];
  const spine = chapters.map((_, i) => `    <itemref idref="c-${nn(i)}"/>`);
  return `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="book-id" xml:lang="${xml(book.language)}">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
${meta.join('\n')}
  </metadata>
  <manifest>
${items.join('\n')}
  </manifest>
  <spine>
${spine.join('\n')}
  </spine>
</package>
`;
}
