// An EPUB (2 or 3) to chapters: META-INF/container.xml names the package document; its spine gives the reading
// order, its metadata the title and author, and the table of contents (EPUB 3's nav document, else EPUB 2's NCX)
// where each chapter starts and what it is called. Unzipped with fflate, refusing before it inflates anything an
// archive whose entries would unpack to more than the limit (a zip bomb), and never inflating an entry past its
// declared size.
import { unzipSync, type Unzipped } from 'fflate';
import { Parser } from 'htmlparser2';
import { DocumentError, tooMany } from './errors.ts';
import type { DocChapter } from './blocks.ts';
import { htmlText, MAX_NESTING, tooDeep } from './html.ts';

export interface EpubBook {
  title: string | null;
  author: string | null;
  chapters: DocChapter[];
}

/** Text before the first entry of the table of contents is read only when it is more than a title page. */
const MIN_FRONT_MATTER_CHARS = 200;
/** Most entries an archive may hold (an EPUB has a few hundred at most). */
const MAX_ENTRIES = 10_000;

interface XmlElement {
  name: string;
  attribs: Record<string, string>;
  /** Its text and child elements, in document order. */
  content: Array<string | XmlElement>;
  children: XmlElement[];
}

/** A small element tree (package documents and NCX files are a few KiB); names lower-case, without their prefix. */
function xmlTree(xml: string): XmlElement {
  const root: XmlElement = { name: '#root', attribs: {}, content: [], children: [] };
  const stack = [root];
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const el: XmlElement = { name: name.toLowerCase().replace(/^.*:/, ''), attribs, content: [], children: [] };
        const parent = stack[stack.length - 1];
        parent.children.push(el);
        parent.content.push(el);
        stack.push(el);
        if (stack.length > MAX_NESTING) throw tooDeep();
      },
      ontext(text) {
        // Kept where it occurs; an element's whole text is gathered only when asked for (textOf).
        stack[stack.length - 1].content.push(text);
      },
      onclosetag() {
        if (stack.length > 1) stack.pop();
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(xml);
  parser.end();
  return root;
}

/** The text of an element and everything in it, in document order (a loop: nesting depth costs no stack). */
function textOf(el: XmlElement): string {
  let out = '';
  const todo: Array<string | XmlElement> = [el];
  while (todo.length > 0) {
    const next = todo.pop() as string | XmlElement;
    if (typeof next === 'string') out += next;
    else for (let i = next.content.length - 1; i >= 0; i--) todo.push(next.content[i]);
  }
  return out;
}

const textIn = (el: XmlElement | undefined): string => (el ? textOf(el) : '');

/** Every element under `el`, in document order (a loop, so each costs the same however deep it is). */
function* walk(el: XmlElement): Generator<XmlElement> {
  const todo: XmlElement[] = [...el.children].reverse();
  while (todo.length > 0) {
    const next = todo.pop() as XmlElement;
    yield next;
    for (let i = next.children.length - 1; i >= 0; i--) todo.push(next.children[i]);
  }
}

const find = (el: XmlElement, name: string): XmlElement | undefined => {
  for (const e of walk(el)) if (e.name === name) return e;
  return undefined;
};
const findAll = (el: XmlElement, name: string): XmlElement[] => [...walk(el)].filter((e) => e.name === name);
const clean = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** Resolves `href` (percent-encoded, relative to the file `base`) to a path inside the archive, without its fragment. */
function resolvePath(base: string, href: string): { path: string; fragment: string | null } {
  const [rawPath, fragment] = href.split('#', 2);
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    decoded = rawPath;
  }
  const parts = decoded === '' ? base.split('/') : [...base.split('/').slice(0, -1), ...decoded.split('/')];
  const out: string[] = [];
  for (const p of parts) {
    if (p === '' || p === '.') continue;
    if (p === '..') out.pop();
    else out.push(p);
  }
  return { path: out.join('/'), fragment: fragment ?? null };
}

function unzip(bytes: Uint8Array, maxBytes: number): Unzipped {
  let total = 0;
  let entries = 0;
  let tooLarge = false;
  let files: Unzipped;
  try {
    files = unzipSync(bytes, {
      filter(file) {
        entries++;
        total += file.originalSize;
        if (entries > MAX_ENTRIES || total > maxBytes) tooLarge = true;
        // Nothing is inflated once the archive is known to be too large.
        return !tooLarge && !file.name.endsWith('/');
      },
    });
  } catch (err) {
    throw new DocumentError(
      'invalid_document',
      `The EPUB is not a valid zip archive (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  if (tooLarge) {
    throw new DocumentError(
      'document_too_large',
      `The EPUB would unpack to more than ${Math.round(maxBytes / 1048576)} MiB (or holds over ${MAX_ENTRIES} files); it was not unpacked`,
    );
  }
  return files;
}

const decoder = new TextDecoder('utf-8');

interface TocEntry {
  path: string;
  fragment: string | null;
  title: string;
}

/** EPUB 3: the <nav epub:type="toc"> of the navigation document, every level in reading order. */
function navEntries(files: Unzipped, navPath: string): TocEntry[] {
  const file = files[navPath];
  if (!file) return [];
  const tree = xmlTree(decoder.decode(file));
  const navs = findAll(tree, 'nav');
  const toc = navs.find((n) => /\btoc\b/.test(n.attribs['epub:type'] ?? '')) ?? navs[0];
  if (!toc) return [];
  return findAll(toc, 'a')
    .filter((a) => a.attribs.href)
    .map((a) => ({ ...resolvePath(navPath, a.attribs.href), title: clean(textOf(a)) }));
}

/** EPUB 2: the NCX's navPoints, nested ones included, in document order. */
function ncxEntries(files: Unzipped, ncxPath: string): TocEntry[] {
  const file = files[ncxPath];
  if (!file) return [];
  const tree = xmlTree(decoder.decode(file));
  return findAll(tree, 'navpoint').flatMap((p) => {
    const label = p.children.find((c) => c.name === 'navlabel');
    const content = p.children.find((c) => c.name === 'content');
    if (!content?.attribs.src) return [];
    return [{ ...resolvePath(ncxPath, content.attribs.src), title: clean(label ? textOf(find(label, 'text') ?? label) : '') }];
  });
}

export function readEpub(bytes: Uint8Array, maxBytes: number, fallbackTitle: string, maxChapters: number): EpubBook {
  const files = unzip(bytes, maxBytes);
  const container = files['META-INF/container.xml'];
  if (!container) throw new DocumentError('invalid_document', 'Not an EPUB: META-INF/container.xml is missing');
  const rootfile = find(xmlTree(decoder.decode(container)), 'rootfile')?.attribs['full-path'];
  if (!rootfile || !files[rootfile])
    throw new DocumentError('invalid_document', 'Not an EPUB: the package document named in container.xml is missing');
  const opf = xmlTree(decoder.decode(files[rootfile]));
  const metadata = find(opf, 'metadata');
  const title = metadata ? clean(textIn(find(metadata, 'title'))) || null : null;
  const author = metadata ? clean(textIn(find(metadata, 'creator'))) || null : null;

  const manifest = new Map<string, { path: string; type: string; properties: string }>();
  for (const item of findAll(opf, 'item')) {
    if (!item.attribs.id || !item.attribs.href) continue;
    manifest.set(item.attribs.id, {
      path: resolvePath(rootfile, item.attribs.href).path,
      type: item.attribs['media-type'] ?? '',
      properties: item.attribs.properties ?? '',
    });
  }
  const spineEl = find(opf, 'spine');
  if (!spineEl) throw new DocumentError('invalid_document', 'Not an EPUB: the package document has no spine');
  const nav = [...manifest.values()].find((m) => /\bnav\b/.test(m.properties));
  // The reading order, without the navigation document and the auxiliary (linear="no") items.
  const spine = findAll(spineEl, 'itemref')
    .filter((r) => r.attribs.linear !== 'no')
    .map((r) => manifest.get(r.attribs.idref ?? ''))
    .filter(
      (m): m is { path: string; type: string; properties: string } =>
        m !== undefined && m.path !== nav?.path && /html|xml/.test(m.type) && files[m.path] !== undefined,
    );
  if (spine.length === 0) throw new DocumentError('invalid_document', 'The EPUB has no readable documents in its spine');

  let toc = nav ? navEntries(files, nav.path) : [];
  const ncxId = spineEl.attribs.toc;
  if (toc.length === 0) {
    const ncx = (ncxId ? manifest.get(ncxId) : undefined) ?? [...manifest.values()].find((m) => m.type === 'application/x-dtbncx+xml');
    if (ncx) toc = ncxEntries(files, ncx.path);
  }
  const spinePaths = spine.map((s) => s.path);
  // Entries that point into the spine, each place once, in reading order.
  const seen = new Set<string>();
  toc = toc.filter((e) => {
    const key = `${e.path}#${e.fragment ?? ''}`;
    if (!spinePaths.includes(e.path) || seen.has(key)) return false;
    seen.add(key);
    return true;
  });

  const chapters: DocChapter[] = [];
  let current: DocChapter | null = null;
  const front: string[] = [];
  for (const item of spine) {
    const doc = htmlText(decoder.decode(files[item.path]));
    if (toc.length === 0) {
      // No table of contents: each document is a chapter, named by its first heading.
      const paragraphs = doc.blocks.map((b) => b.text);
      if (paragraphs.length > 0)
        chapters.push({
          title: doc.blocks.find((b) => b.heading > 0)?.text.replace(/\n/g, ' ') ?? doc.title ?? `Chapter ${chapters.length + 1}`,
          paragraphs,
        });
      if (chapters.length > maxChapters) throw tooMany('chapters', maxChapters);
      continue;
    }
    // Where in this document each entry that points into it starts (a whole-document entry at its start).
    const starts = toc
      .filter((e) => e.path === item.path)
      .map((e) => ({ entry: e, at: e.fragment === null ? 0 : (doc.anchors.get(e.fragment) ?? null) }))
      .filter((s): s is { entry: TocEntry; at: number } => s.at !== null)
      .sort((a, b) => a.at - b.at);
    for (const [i, block] of doc.blocks.entries()) {
      for (const s of starts) {
        if (s.at === i) {
          current = { title: s.entry.title || block.text.replace(/\n/g, ' ').slice(0, 200), paragraphs: [] };
          chapters.push(current);
          // One more than the bound: front matter may still join them below, and empty entries are dropped.
          if (chapters.length > maxChapters + 1) throw tooMany('chapters', maxChapters);
        }
      }
      if (current) current.paragraphs.push(block.text);
      else front.push(block.text);
    }
  }
  const kept = chapters.filter((c) => c.paragraphs.length > 0);
  if (front.join(' ').length >= MIN_FRONT_MATTER_CHARS) kept.unshift({ title: title ?? fallbackTitle, paragraphs: front });
  if (kept.length === 0) throw new DocumentError('invalid_document', 'The EPUB holds no text to read');
  if (kept.length > maxChapters) throw tooMany('chapters', maxChapters);
  return { title, author, chapters: kept };
}
