// PLS documents are read on a thread of their own: a megabyte of XML is tens of milliseconds of saxes even when
// well-formed, which must not stall the event loop that serves everyone else.
import { parsePls, PlsError } from './pls.ts';
import type { PlsReadResult } from './pls-reader.ts';

export default function read(xml: string): PlsReadResult {
  try {
    return { ok: true, rules: parsePls(xml) };
  } catch (err) {
    // Errors lose their class crossing the thread boundary; where the document is wrong travels as data.
    if (err instanceof PlsError) return { ok: false, reason: err.reason, line: err.line, column: err.column };
    throw err;
  }
}
