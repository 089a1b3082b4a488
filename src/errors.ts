// The catalogue is part of the API's shape, so it lives with the schemas; the server's error class is here.
import { ERRORS, type ErrorCode } from './schemas/errors.ts';
import { isStoreUnavailable } from './store/unavailable.ts';

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

/** The envelope every door sends for a failure: a catalogue code with a message (the catalogue's own by default). */
export function errorBody(code: ErrorCode, message?: string): ErrorBody {
  return { error: message ?? ERRORS[code].message, code };
}

/** What a thrown value tells a client, whichever door it came in by. */
export interface ErrorReport {
  body: ErrorBody;
  /** Seconds after which a retry may succeed (HTTP's Retry-After), when the error says. */
  retryAfter?: number;
  /** Not the client's doing nor a known condition: a bug, to be logged with its stack. */
  internal: boolean;
}

/**
 * A catalogue error keeps its code and message; a database out of reach is `unavailable`; anything else is
 * `internal` with `internalMessage` rather than its own message (which may say more about the server than a
 * client should read).
 */
export function errorReport(error: unknown, internalMessage: string): ErrorReport {
  if (error instanceof AppError) {
    const retry = error.headers['Retry-After'];
    return { body: errorBody(error.code, error.message), internal: false, ...(retry ? { retryAfter: Number(retry) } : {}) };
  }
  if (isStoreUnavailable(error)) return { body: errorBody('unavailable', DATABASE_UNAVAILABLE), retryAfter: 2, internal: false };
  return { body: errorBody('internal', internalMessage), internal: true };
}

const DATABASE_UNAVAILABLE = 'The database is unavailable; retry shortly';
