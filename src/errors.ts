/**
 * The one error catalogue: every failure the API reports has a code here, and every error body is
 * `{"error": message, "code": code}`.
 */
export const ERRORS = {
  bad_request: { status: 400, message: 'Bad request' },
  invalid_json: { status: 400, message: 'Request body is not valid JSON' },
  validation: { status: 400, message: 'Request is invalid' },
  invalid_token: { status: 400, message: 'This sign-in link is invalid, expired or already used' },
  unauthorized: { status: 401, message: 'Authentication required: send a valid API key as "Authorization: Bearer <key>" or sign in' },
  csrf: { status: 403, message: 'Cross-origin request refused: the Origin header must match the service origin' },
  forbidden: { status: 403, message: 'Forbidden' },
  not_found: { status: 404, message: 'Not found' },
  route_not_found: { status: 404, message: 'No such endpoint' },
  key_not_found: { status: 404, message: 'No such API key' },
  voice_not_found: { status: 404, message: 'No such voice' },
  method_not_allowed: { status: 405, message: 'Method not allowed' },
  payload_too_large: { status: 413, message: 'Request body is too large' },
  text_too_long: { status: 413, message: 'Text is too long' },
  unsupported_media_type: { status: 415, message: 'Unsupported content type' },
  unsupported_audio: { status: 415, message: 'Unsupported audio: send WAV, MP3, Ogg (Opus or Vorbis) or FLAC' },
  invalid_audio: { status: 400, message: 'The audio file is damaged or holds no audio' },
  audio_too_short: { status: 400, message: 'The audio is too short' },
  audio_too_long: { status: 413, message: 'The audio is too long' },
  no_speech: { status: 400, message: 'No speech was found in the audio' },
  rate_limited: { status: 429, message: 'Too many requests, retry later' },
  internal: { status: 500, message: 'Internal server error' },
  mail_unavailable: { status: 503, message: 'Could not send the sign-in e-mail, try again later' },
  unavailable: { status: 503, message: 'Service temporarily unavailable' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

export interface ErrorBody {
  error: string;
  code: ErrorCode;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message?: string, headers: Record<string, string> = {}) {
    super(message ?? ERRORS[code].message);
    this.code = code;
    this.status = ERRORS[code].status;
    this.headers = headers;
  }

  body(): ErrorBody {
    return { error: this.message, code: this.code };
  }
}

export function errorBody(code: ErrorCode, message?: string): ErrorBody {
  return { error: message ?? ERRORS[code].message, code };
}
