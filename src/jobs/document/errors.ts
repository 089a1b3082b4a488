import type { ErrorCode } from '../../schemas/errors.ts';

/** The codes a document can be refused with (they cross from the parsing thread as plain data). */
export type DocumentErrorCode = Extract<
  ErrorCode,
  'invalid_document' | 'document_too_large' | 'job_too_large' | 'ssml_invalid' | 'text_too_long' | 'validation'
>;

/** A document that cannot become a job, for a reason the client must hear (a 4xx). */
export class DocumentError extends Error {
  constructor(
    readonly code: DocumentErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DocumentError';
  }
}

/** The refusal of a document with more chapters (or pieces) than a job may hold, once the count passes it. */
export function tooMany(what: 'chapters' | 'pieces', max: number): DocumentError {
  const variable = what === 'chapters' ? 'MAX_JOB_CHAPTERS' : 'MAX_JOB_PIECES';
  return new DocumentError(
    'job_too_large',
    `the document holds more than ${max} ${what}, the most one job may (${variable}); split it into several jobs`,
  );
}
