import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';

/**
 * Reads a multipart upload into `request.body` before validation, so the route's schema checks the upload as
 * it checks any JSON body: the one file field as bytes, the text fields as strings. A text part named like the
 * file is no file and is left out, so the schema reports the file as missing. Returns the uploaded file's name
 * ('' when the client gave none; undefined when no file came).
 */
export async function readMultipartBody(request: FastifyRequest, fileField: string): Promise<string | undefined> {
  const body: Record<string, string | Uint8Array> = {};
  let fileName: string | undefined;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        // Reading to the end enforces the size limit (toBuffer throws the 413); a stray file is drained.
        const bytes = await part.toBuffer();
        if (part.fieldname === fileField) {
          body[fileField] = bytes;
          fileName = part.filename ?? '';
        }
      } else {
        if (part.valueTruncated) throw new AppError('validation', `${part.fieldname} is too long`);
        if (typeof part.value === 'string' && part.fieldname !== fileField) body[part.fieldname] = part.value;
      }
    }
  } catch (error) {
    throw multipartError(error);
  }
  request.body = body;
  return fileName;
}

/**
 * The multipart parser (busboy) reports a missing or over-long boundary and a body cut short as plain
 * Errors; they are the client's fault, so a 400 saying what was wrong. Our own errors and the parser's
 * coded limits (413s, mapped by the error handler) pass through.
 */
export function multipartError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  if (error instanceof Error && 'code' in error && typeof error.code === 'string' && error.code.startsWith('FST_')) return error;
  const detail = error instanceof Error && error.message ? `: ${error.message.replace(/^Multipart: /, '')}` : '';
  return new AppError('invalid_multipart', `The multipart body is malformed${detail}`);
}
