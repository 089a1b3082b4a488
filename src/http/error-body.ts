// Every door reports a failure in the same words: an HTTP answer, the trailer of a response already under way,
// the WebSocket stream's error message and Wyoming's error event all take their code, status and message from
// here, so a failure reads the same whichever way the client came in.
import type { FastifyError } from 'fastify';
import { AppError, ERRORS, errorBody, errorReport, type ErrorBody, type ErrorCode } from '../errors.ts';
import { isStoreUnavailable } from '../store/unavailable.ts';
import { describeValidation } from './validation-message.ts';

/** Fastify's own error codes, mapped onto the catalogue so framework errors look like ours. */
const FRAMEWORK_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_REQ_FILE_TOO_LARGE: 'payload_too_large',
  FST_PARTS_LIMIT: 'payload_too_large',
  FST_FILES_LIMIT: 'payload_too_large',
  FST_FIELDS_LIMIT: 'payload_too_large',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'unsupported_media_type',
};

/**
 * Where an error came from, which decides how it is logged: `internal` is a bug (logged with its stack),
 * `unavailable` the database out of reach (a warning), the others the client's doing or a catalogue error.
 */
export type ErrorKind = 'app' | 'validation' | 'framework' | 'unavailable' | 'client' | 'internal';

export interface ErrorAnswer {
  status: number;
  body: ErrorBody;
  /** Headers the error asks to be sent with it (Retry-After). */
  headers: Record<string, string>;
  kind: ErrorKind;
}

/**
 * The answer to any thrown value. A catalogue error keeps its code and message; the framework's errors and a
 * database outage are mapped onto the catalogue; anything else is `internal`, with `internalMessage` rather
 * than its own message (which may say more about the server than a client should read).
 */
export function errorAnswer(error: unknown, internalMessage?: string): ErrorAnswer {
  if (error instanceof AppError)
    return { status: error.status, body: errorBody(error.code, error.message), headers: error.headers, kind: 'app' };
  const framework = (typeof error === 'object' && error !== null ? error : {}) as Partial<FastifyError>;
  if (framework.validation)
    return { status: 400, body: errorBody('validation', describeValidation(framework as FastifyError)), headers: {}, kind: 'validation' };
  if (framework.code && Object.hasOwn(FRAMEWORK_CODES, framework.code)) {
    const code = FRAMEWORK_CODES[framework.code];
    const message = code === 'invalid_json' ? `Request body is not valid JSON: ${framework.message}` : undefined;
    return { status: ERRORS[code].status, body: errorBody(code, message), headers: {}, kind: 'framework' };
  }
  const status = framework.statusCode;
  if (status !== undefined && status >= 400 && status < 500 && !isStoreUnavailable(error))
    return { status, body: { error: String(framework.message), code: 'bad_request' }, headers: {}, kind: 'client' };
  // What every door says alike: a database out of reach (a quick 503 to retry, not a hang or a 500), or a bug.
  const { body, retryAfter, internal } = errorReport(error, internalMessage ?? ERRORS.internal.message);
  const headers: Record<string, string> = retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) };
  return { status: ERRORS[body.code].status, body, headers, kind: internal ? 'internal' : 'unavailable' };
}

/** The error body an HTTP client reads (a response, or the trailer of one already under way), with its request id. */
export function errorEnvelope(error: unknown, requestId: string): ErrorBody & { request_id: string } {
  return { ...errorAnswer(error).body, request_id: requestId };
}
