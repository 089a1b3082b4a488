import type { DestinationStream } from 'pino';
import type { FastifyRequest } from 'fastify';

const SECRET_PARAMS = new Set(['token', 'key', 'api_key', 'access_token']);

/** The request URL as it may appear in a log: secret query parameters replaced. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const name of [...params.keys()]) {
    if (SECRET_PARAMS.has(name.toLowerCase())) params.set(name, '[redacted]');
  }
  return `${url.slice(0, q)}?${params.toString()}`;
}

export const logSerializers = {
  req(request: FastifyRequest) {
    return { method: request.method, url: redactUrl(request.url), remoteAddress: request.ip };
  },
};

/** Credentials can also hide in headers; pino drops these paths wherever they are logged. */
export const logRedact = {
  paths: [
    'req.headers.authorization',
    'req.headers["xi-api-key"]',
    'req.headers.cookie',
    'res.headers["set-cookie"]',
    'headers.authorization',
    'headers["xi-api-key"]',
    'headers.cookie',
  ],
  censor: '[redacted]',
};

/** Narrows a log field to a plain object, so the formatter can read its fields without trusting their types. */
function fields(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

/**
 * One log line for people: request lines as "→ POST /v1/speak" and "← 200 in 41 ms" with a short request id, and a
 * sign-in link alone on its own indented line, so a terminal can open it with one click.
 */
export function formatLogMessage(log: Record<string, unknown>, messageKey: string): string {
  const msg = String(log[messageKey] ?? '');
  const reqId = typeof log.reqId === 'string' ? ` [${log.reqId.slice(0, 8)}]` : '';
  const req = fields(log.req);
  const res = fields(log.res);
  if (typeof req.method === 'string' && typeof req.url === 'string') return `→ ${req.method} ${req.url}${reqId}`;
  if (typeof res.statusCode === 'number') {
    const took = typeof log.responseTime === 'number' ? ` in ${Math.round(log.responseTime)} ms` : '';
    return `← ${res.statusCode}${took}${reqId}`;
  }
  if (typeof log.link === 'string') return `${msg}${reqId}\n\n    ${log.link}\n`;
  return `${msg}${reqId}`;
}

/**
 * pino's stream for a terminal: pino-pretty, synchronous so lines and the start-up banner keep their order.
 * Loaded only for a terminal: a service logging JSON to a collector does not pay its start-up time.
 */
export async function prettyLogStream(colorize: boolean): Promise<DestinationStream> {
  const { default: pinoPretty } = await import('pino-pretty');
  return pinoPretty({
    colorize,
    sync: true,
    translateTime: 'SYS:HH:MM:ss',
    // Shown by formatLogMessage instead, or of no use to a person at a terminal.
    ignore: 'pid,hostname,reqId,req,res,responseTime,link',
    singleLine: true,
    messageFormat: formatLogMessage,
  });
}
