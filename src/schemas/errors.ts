// The error catalogue and the one error body. Pure: only TypeBox, so the server, the client SDK and the
// dashboard share the codes.
import { Type, type Static } from '@sinclair/typebox';

/**
 * Every failure the API reports has a code here, with its HTTP status and default message; every error
 * body is `{"error": message, "code": code, "request_id"}`.
 */
export const ERRORS = {
  bad_request: { status: 400, message: 'Bad request' },
  invalid_json: { status: 400, message: 'Request body is not valid JSON' },
  validation: { status: 400, message: 'Request is invalid' },
  forbidden_json_key: { status: 400, message: 'JSON keys "__proto__" and "constructor.prototype" are not allowed' },
  invalid_token: { status: 400, message: 'This sign-in link is invalid or already used' },
  link_expired: { status: 410, message: 'This sign-in link has expired: ask for a new one' },
  invalid_multipart: { status: 400, message: 'The multipart body is malformed' },
  malformed_request: { status: 400, message: 'Malformed HTTP request' },
  bad_url: { status: 400, message: 'The URL is malformed (bad percent-encoding)' },
  request_timeout: { status: 408, message: 'The request was not received in time' },
  headers_too_large: { status: 431, message: 'Request headers are too large' },
  unauthorized: { status: 401, message: 'Authentication required: send a valid API key as "Authorization: Bearer <key>" or sign in' },
  csrf: { status: 403, message: 'Cross-origin request refused: the Origin header must match the service origin' },
  forbidden: { status: 403, message: 'Forbidden' },
  session_required: { status: 403, message: 'This needs a signed-in session (the dashboard), not an API key' },
  insufficient_scope: { status: 403, message: 'This API key lacks the scope this operation needs' },
  quota_exceeded: { status: 403, message: 'Account quota reached' },
  storage_quota_exceeded: {
    status: 403,
    message: 'This account’s jobs hold as much audio as allowed (MAX_JOB_STORAGE_MB_PER_USER): delete finished jobs first',
  },
  not_found: { status: 404, message: 'Not found' },
  route_not_found: { status: 404, message: 'No such endpoint' },
  key_not_found: { status: 404, message: 'No such API key' },
  voice_not_found: { status: 404, message: 'No such voice' },
  voice_not_installed: { status: 404, message: 'This voice is not installed in VOICES_DIR' },
  operator_only: { status: 403, message: 'Only an operator of this service may do this: its first account, or one listed in ADMIN_EMAILS' },
  lexicon_not_found: { status: 404, message: 'No such lexicon' },
  lexicon_exists: { status: 409, message: 'A lexicon with this name already exists' },
  invalid_pls: { status: 400, message: 'The PLS lexicon is not well-formed XML or not a PLS document' },
  method_not_allowed: { status: 405, message: 'Method not allowed' },
  expectation_failed: { status: 417, message: 'Only "Expect: 100-continue" is supported' },
  payload_too_large: { status: 413, message: 'Request body is too large' },
  text_too_long: { status: 413, message: 'Text is too long' },
  unsupported_media_type: { status: 415, message: 'Unsupported content type' },
  unsupported_audio: { status: 415, message: 'Unsupported audio: send WAV, MP3, Ogg (Opus or Vorbis) or FLAC' },
  invalid_audio: { status: 400, message: 'The audio file is damaged or holds no audio' },
  audio_too_short: { status: 400, message: 'The audio is too short' },
  audio_too_long: { status: 413, message: 'The audio is too long (an uploaded sample, or speech past MAX_AUDIO_SECONDS)' },
  no_speech: { status: 400, message: 'No speech was found in the audio' },
  ssml_invalid: { status: 400, message: 'The SSML is malformed or uses an unsupported element or attribute' },
  not_speech: { status: 422, message: 'The recording is not speech (a tone, noise or other sound)' },
  rate_limited: { status: 429, message: 'Too many requests, retry later' },
  concurrency_limited: {
    status: 429,
    message: 'Too many syntheses at once for this API key (MAX_CONCURRENT_PER_KEY), retry when one has finished',
  },
  job_not_found: { status: 404, message: 'No such job' },
  too_many_jobs: {
    status: 429,
    message: 'Too many jobs queued or running for this account (MAX_JOBS_PER_USER); retry when one has finished',
  },
  invalid_document: { status: 400, message: 'The document could not be read (not a valid EPUB, or no text in it)' },
  job_too_large: {
    status: 413,
    message: 'The job is larger than one job may be (MAX_JOB_CHAPTERS, MAX_JOB_PIECES, MAX_JOB_AUDIO_SECONDS)',
  },
  document_too_large: { status: 413, message: 'The document unpacks to more than the limit (MAX_JOB_UPLOAD_MB)' },
  audio_not_ready: { status: 409, message: 'This audio is not rendered yet' },
  epub_format_unsupported: { status: 409, message: 'A read-along EPUB carries MP3 audio: the job must be rendered as mp3' },
  job_busy: { status: 409, message: 'The job is still rendering (or failed); a chapter is redone once the book is done' },
  range_not_satisfiable: { status: 416, message: 'The requested byte range is not in the file' },
  internal: { status: 500, message: 'Internal server error' },
  mail_unavailable: { status: 503, message: 'Could not send the sign-in e-mail, try again later' },
  wyoming_not_connected: {
    status: 409,
    message: 'Wyoming is not connected to an API key yet: connect one on the dashboard’s Home Assistant page',
  },
  busy: { status: 503, message: 'The server is busy with other work, retry later' },
  unavailable: { status: 503, message: 'Service temporarily unavailable' },
  catalog_unavailable: { status: 503, message: 'The voice catalogue cannot be reached (VOICES_CATALOG_URL)' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;
export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

export const RequestId = Type.String({
  format: 'uuid',
  description: 'The id of the request, also in the X-Request-Id header and on its log lines',
});

/**
 * The one error body of every door: `error` is the message for people, `code` a machine-readable code from the
 * catalogue, so a client branches on the code and never has to parse the text.
 */
export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'What went wrong, for people' }),
    // A string with an enum rather than a union: a client must still read a code added after it was built.
    code: Type.Unsafe<ErrorCode>(Type.String({ enum: ERROR_CODES, description: 'What went wrong, for programs' })),
    request_id: RequestId,
  },
  {
    description: 'Every failure: a non-2xx status with this body',
    examples: [{ error: 'No voice "robot-9"', code: 'voice_not_found', request_id: '3b0f1c2e-8d4a-4c55-9f3e-1f2a3b4c5d6e' }],
  },
);
export type ErrorBody = Static<typeof ErrorBody>;
