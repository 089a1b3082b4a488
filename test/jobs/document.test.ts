import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { strToU8, zipSync } from 'fflate';
import { DocumentError } from '../../src/jobs/document/errors.ts';
import { MAX_PIECE_CHARS, planDocument, type DocumentInput } from '../../src/jobs/document/plan.ts';
import { parseSsml } from '../../src/synth/text/ssml.ts';
import { buildEpub, zipBomb } from '../helpers/epub.ts';

const base: Omit<DocumentInput, 'source'> = {
  fallbackTitle: 'Untitled',
  maxUnpackedBytes: 20 << 20,
  maxChars: 1_000_000,
  maxPieceChars: 10_000,
  maxChapters: 500,
  maxPieces: 20_000,
};
const para = (n: number) =>
  `Paragraph ${n} begins here, and it goes on for a while with ordinary words so that it has some length to it. It ends here.`;

describe('documents into chapters and pieces', () => {
  test('EPUB 2 (NCX only) and EPUB 3: the table of contents titles the chapters; a title page is not a chapter', () => {
    for (const version of [2, 3] as const) {
      const plan = planDocument({
        ...base,
        source: 'epub',
        bytes: buildEpub(
          [
            { title: 'One', paragraphs: [para(1)] },
            { title: 'Two', paragraphs: [para(2)] },
          ],
          { version, titlePage: true },
        ),
      });
      assert.deepEqual(
        plan.chapters.map((c) => c.title),
        ['One', 'Two'],
        `EPUB ${version}`,
      );
      assert.equal(plan.title, 'A Test Book');
      assert.equal(plan.author, 'Test Author');
      assert.match(plan.pieces[0].text, /^One\n\nParagraph 1/);
    }
  });

  test('EPUB entries that point into one file split it at their anchors', () => {
    const xhtml = `<html xmlns="http://www.w3.org/1999/xhtml"><body><h2 id="a">First</h2><p>${para(1)}</p><h2 id="b">Second</h2><p>${para(2)}</p></body></html>`;
    const nav = `<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><body><nav epub:type="toc"><ol><li><a href="all.xhtml#a">First</a></li><li><a href="all.xhtml#b">Second</a></li></ol></nav></body></html>`;
    const opf = `<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Split</dc:title></metadata>
      <manifest><item id="all" href="all.xhtml" media-type="application/xhtml+xml"/><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/></manifest><spine><itemref idref="all"/></spine></package>`;
    const bytes = zipSync({
      mimetype: strToU8('application/epub+zip'),
      'META-INF/container.xml': strToU8('<container><rootfiles><rootfile full-path="book.opf"/></rootfiles></container>'),
      'book.opf': strToU8(opf),
      'all.xhtml': strToU8(xhtml),
      'nav.xhtml': strToU8(nav),
    });
    const plan = planDocument({ ...base, source: 'epub', bytes });
    assert.deepEqual(
      plan.chapters.map((c) => c.title),
      ['First', 'Second'],
    );
    assert.ok(plan.pieces[1].text.startsWith('Second\n\nParagraph 2'));
  });

  test('HTML: repeated headings start chapters, a single h1 above them is the title; scripts and notes are not read', () => {
    const html = `<html><head><title>T</title><script>var x = 1;</script></head><body><h1>The Book</h1><h2>Alpha</h2><p>${para(1)}<a epub:type="noteref">1</a></p><h2>Beta</h2><p>${para(2)}&nbsp;&amp; more</p></body></html>`;
    const plan = planDocument({ ...base, source: 'html', text: html });
    assert.deepEqual(
      plan.chapters.map((c) => c.title),
      ['Alpha', 'Beta'],
    );
    assert.ok(!plan.pieces.some((p) => p.text.includes('var x')));
    assert.ok(plan.pieces[1].text.endsWith('& more'));
    assert.ok(!plan.pieces[0].text.includes('ends here.1'));
  });

  test('plain text: chapter lines in their many spellings; long chapters become pieces under the limit, cut between paragraphs or sentences', () => {
    const long = Array.from({ length: 12 }, (_, i) => para(i)).join('\n\n');
    const text = `My Novel\n\nChapter 1\n\n${long}\n\nCHAPTER XII\nThe Storm\n\n${Array.from({ length: 30 }, (_, i) => para(i)).join(' ')}\n\nChapter Twenty-One: Home\n\nThe end.\n\nEpilogue\n\nAfter.`;
    const plan = planDocument({ ...base, source: 'text', text });
    assert.equal(plan.title, 'My Novel');
    assert.deepEqual(
      plan.chapters.map((c) => c.title),
      ['Chapter 1', 'CHAPTER XII: The Storm', 'Chapter Twenty-One: Home', 'Epilogue'],
    );
    assert.ok(
      plan.pieces.every((p) => p.characters <= MAX_PIECE_CHARS),
      'no piece over the limit',
    );
    assert.ok(plan.chapters[0].pieces >= 2 && plan.chapters[1].pieces >= 2);
    const second = plan.pieces.filter((p) => p.chapter === 1);
    assert.equal(second[0].pauseBefore, null);
    assert.ok(second.slice(1).every((p) => p.pauseBefore === 'sentence' || p.pauseBefore === 'paragraph'));
    assert.equal(
      plan.characters,
      plan.pieces.reduce((n, p) => n + p.characters, 0),
    );
  });

  test('SSML: pieces are valid SSML on their own, with the open elements carried over', () => {
    const ssml = `<speak xml:lang="en-US"><voice name="flite-slt"><prosody rate="slow">${Array.from({ length: 10 }, (_, i) => `<p>${para(i)}</p>`).join('')}</prosody></voice></speak>`;
    const plan = planDocument({ ...base, source: 'ssml', text: ssml });
    assert.ok(plan.pieces.length >= 2);
    for (const p of plan.pieces) {
      assert.match(p.text, /^<speak xml:lang="en-US"><voice name="flite-slt"><prosody rate="slow">/);
      parseSsml(p.text);
    }
    assert.equal(plan.pieces[1].pauseBefore, 'paragraph');
  });

  test('refusals: not a zip, not an EPUB, a zip bomb, over MAX_JOB_CHARS, no text', () => {
    const refuse = (input: DocumentInput, code: string) =>
      assert.throws(
        () => planDocument(input),
        (e: unknown) => e instanceof DocumentError && e.code === code,
      );
    refuse({ ...base, source: 'epub', bytes: strToU8('nope') }, 'invalid_document');
    refuse({ ...base, source: 'epub', bytes: zipSync({ 'a.txt': strToU8('hello') }) }, 'invalid_document');
    refuse({ ...base, source: 'epub', bytes: zipBomb(30) }, 'document_too_large');
    refuse({ ...base, source: 'text', text: 'x'.repeat(2000), maxChars: 1000 }, 'text_too_long');
    refuse({ ...base, source: 'html', text: '<script>only()</script>' }, 'invalid_document');
  });
});
