/** The log lines the store and shared state write (pino's logger fits). */
export interface StoreLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export const silentLogger: StoreLogger = { info() {}, warn() {}, error() {} };

/** An error as a log field: message and code, never a stack full of connection strings. */
export function describeError(err: unknown): { message: string; code?: string } {
  if (!(err instanceof Error)) return { message: String(err) };
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? { message: err.message, code } : { message: err.message };
}
