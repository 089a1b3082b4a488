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
  paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]', 'headers.authorization', 'headers.cookie'],
  censor: '[redacted]',
};
