// The catalogue is part of the API's shape, so it lives with the schemas; the server's error class is here.
import { ERRORS, type ErrorCode } from './schemas/errors.ts';

export { ERRORS, type ErrorCode };

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
}
