// Builds EPUB files for tests: an EPUB 3 with a navigation document (or an EPUB 2 with an NCX), one XHTML file
// per chapter, zipped with fflate as an e-book tool would (mimetype first and stored).
import { strToU8, zipSync, type Zippable } from 'fflate';

export interface EpubChapter {
  title: string;
  paragraphs: string[];
}

export interface EpubOptions {
  title?: string;
  author?: string;
  /** 3 (nav document, default) or 2 (NCX only). */
  version?: 2 | 3;
  /** A title page before the first chapter, outside the table of contents. */
  titlePage?: boolean;
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function chapterXhtml(c: EpubChapter): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<head><title>${esc(c.title)}</title><link rel="stylesheet" href="../style.css"/></head>
<body><section epub:type="chapter"><h1>${esc(c.title)}</h1>
${c.paragraphs.map((p) => `<p>${esc(p)}</p>`).join('\n')}
</section></body></html>`;
}

export function buildEpub(chapters: readonly EpubChapter[], options: EpubOptions = {}): Uint8Array {
  const title = options.title ?? 'A Test Book';
  const author = options.author ?? 'Test Author';
  const version = options.version ?? 3;
  const files: Zippable = {};
  const items: string[] = [];
  const spine: string[] = [];
  if (options.titlePage) {
    files['OEBPS/text/title.xhtml'] = strToU8(
      `<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>${esc(title)}</title></head><body><p>${esc(title)}</p><p>${esc(author)}</p></body></html>`,
    );
    items.push('<item id="title" href="text/title.xhtml" media-type="application/xhtml+xml"/>');
    spine.push('<itemref idref="title"/>');
  }
  chapters.forEach((c, i) => {
    files[`OEBPS/text/chapter${i + 1}.xhtml`] = strToU8(chapterXhtml(c));
    items.push(`<item id="c${i + 1}" href="text/chapter${i + 1}.xhtml" media-type="application/xhtml+xml"/>`);
    spine.push(`<itemref idref="c${i + 1}"/>`);
  });
  files['OEBPS/style.css'] = strToU8('body { font-family: serif; }');
  if (version === 3) {
    files['OEBPS/nav.xhtml'] = strToU8(`<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Contents</title></head><body>
<nav epub:type="toc" id="toc"><h1>Contents</h1><ol>
${chapters.map((c, i) => `<li><a href="text/chapter${i + 1}.xhtml">${esc(c.title)}</a></li>`).join('\n')}
</ol></nav></body></html>`);
    items.push('<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>');
  }
  files['OEBPS/toc.ncx'] = strToU8(`<?xml version="1.0" encoding="utf-8"?>
<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><head/><docTitle><text>${esc(title)}</text></docTitle><navMap>
${chapters.map((c, i) => `<navPoint id="np${i + 1}" playOrder="${i + 1}"><navLabel><text>${esc(c.title)}</text></navLabel><content src="text/chapter${i + 1}.xhtml"/></navPoint>`).join('\n')}
</navMap></ncx>`);
  items.push('<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>');
  items.push('<item id="css" href="style.css" media-type="text/css"/>');
  files['OEBPS/content.opf'] = strToU8(`<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="${version}.0" unique-identifier="uid">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="uid">urn:uuid:12345678-1234-1234-1234-123456789abc</dc:identifier>
<dc:title>${esc(title)}</dc:title><dc:creator>${esc(author)}</dc:creator><dc:language>en</dc:language></metadata>
<manifest>${items.join('\n')}</manifest>
<spine toc="ncx">${spine.join('\n')}</spine></package>`);
  files['META-INF/container.xml'] = strToU8(`<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>
<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`);
  return zipSync({ mimetype: [strToU8('application/epub+zip'), { level: 0 }], ...files });
}

/** A zip whose one entry inflates to `megabytes` MiB of zeros: a small file that would unpack to a lot. */
export function zipBomb(megabytes: number): Uint8Array {
  return zipSync({
    mimetype: [strToU8('application/epub+zip'), { level: 0 }],
    'OEBPS/big.xhtml': [new Uint8Array(megabytes * 1024 * 1024), { level: 9 }],
  });
}
