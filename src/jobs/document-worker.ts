// The document thread: unzipping an EPUB and parsing its XHTML, or a long HTML or Markdown file, takes real CPU
// (and an upload can be crafted to take more), which must not stall the event loop that serves everyone else.
import { DocumentError } from './document/errors.ts';
import type { MessagePort } from 'node:worker_threads';
import { planDocument, type DocumentInput, type JobPlan } from './document/plan.ts';

export type DocumentResult = { ok: true; plan: JobPlan } | { ok: false; code: DocumentError['code']; message: string };

/** A document to read, with the port told when reading begins (the reader's time bound starts then). */
export interface DocumentTask extends DocumentInput {
  started?: MessagePort;
}

export default function handle({ started, ...input }: DocumentTask): DocumentResult {
  started?.postMessage('started');
  started?.close();
  try {
    return { ok: true, plan: planDocument(input) };
  } catch (err) {
    // Errors lose their class crossing the thread boundary; the code travels as data.
    if (err instanceof DocumentError) return { ok: false, code: err.code, message: err.message };
    throw err;
  }
}
