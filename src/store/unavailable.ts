/**
 * Telling "the database is out of reach" apart from "this query is wrong": the first is a 503 the client
 * may retry, the second a bug (500). Drivers report loss of connection in several shapes, so this file is
 * the one place that knows them.
 */
export class StoreUnavailableError extends Error {
  constructor(message = 'database unavailable', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

// Socket-level failures: refused, reset, unreachable, DNS hiccups.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

// PostgreSQL SQLSTATEs meaning "not now": shutting down / starting up / too many connections / timeouts.
const PG_UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '53300', '57014', '55P03']);

// pg and pg-pool report some failures only by message.
const MESSAGES = [
  /timeout exceeded when trying to connect/i,
  /Connection terminated/i,
  /not queryable/i,
  /Query read timeout/i,
  /Connection ended unexpectedly/i,
];

function codeOf(err: object): string | undefined {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether `err` (or an error it wraps) says the database cannot be reached right now. */
export function isStoreUnavailable(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 4) return false;
  if (err instanceof StoreUnavailableError) return true;
  const code = codeOf(err);
  if (code !== undefined) {
    if (NETWORK_CODES.has(code) || PG_UNAVAILABLE.has(code) || code.startsWith('08')) return true;
    // Another writer held SQLite's lock for longer than busy_timeout.
    if (code === 'SQLITE_BUSY') return true;
  }
  if (MESSAGES.some((m) => m.test(err.message))) return true;
  if (err instanceof AggregateError && err.errors.some((e) => isStoreUnavailable(e, depth + 1))) return true;
  return isStoreUnavailable(err.cause, depth + 1);
}

/** Whether a pg client that saw `err` can no longer be trusted and must be discarded rather than reused. */
export function isBrokenConnection(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = codeOf(err);
  // A statement timeout (57014) cancels the statement but leaves the session usable.
  if (code === '57014' || code === '55P03') return false;
  return isStoreUnavailable(err);
}
