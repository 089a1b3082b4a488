// The document thread: unzipping an EPUB and parsing its XHTML, or a long HTML or Markdown file, takes real CPU
// (and an upload can be crafted to take more), which must not stall the event loop that serves everyone else.
import { DocumentError } from './document/errors.ts';
import { planDocument, type DocumentInput, type JobPlan } from './document/plan.ts';

export type DocumentResult = { ok: true; plan: JobPlan } | { ok: false; code: DocumentError['code']; message: string };

export default function handle(input: DocumentInput): DocumentResult {
  try {
    return { ok: true, plan: planDocument(input) };
  } catch (err) {
    // Errors lose their class crossing the thread boundary; the code travels as data.
    if (err instanceof DocumentError) return { ok: false, code: err.code, message: err.message };
    throw err;
  }
}
