import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import fp from 'fastify-plugin';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERRORS, type ErrorCode } from '../../errors.ts';
import { errorAnswer, errorEnvelope } from '../error-body.ts';

/**
 * JSON.parse with the prototype-poisoning keys refused by name: Fastify's own parser says only "not valid
 * JSON" for them, which sends the client looking for a syntax error that is not there.
 */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw new AppError('invalid_json', 'Request body is empty but Content-Type says JSON');
  try {
    return JSON.parse(text, (key, value: unknown) => {
      if (key === '__proto__') throw new AppError('forbidden_json_key', 'The JSON key "__proto__" is not allowed');
      if (key === 'constructor' && typeof value === 'object' && value !== null && Object.hasOwn(value, 'prototype')) {
        throw new AppError('forbidden_json_key', 'The JSON key "constructor" holding a "prototype" is not allowed');
      }
      return value;
    });
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('invalid_json', `Request body is not valid JSON: ${(error as Error).message}`);
  }
}

/** What Node's HTTP parser refuses before Fastify sees a request, in the words of the catalogue. */
function clientErrorCode(code: string | undefined): { code: ErrorCode; message?: string } {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request_timeout' };
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'headers_too_large' };
    case 'HPE_INVALID_METHOD':
      return { code: 'malformed_request', message: 'Unknown HTTP method' };
    case 'HPE_INVALID_CONTENT_LENGTH':
      return { code: 'malformed_request', message: 'The Content-Length header is invalid' };
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return { code: 'malformed_request', message: 'Transfer-Encoding and Content-Length must not both be sent' };
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return { code: 'malformed_request', message: 'The Transfer-Encoding header is invalid' };
    default:
      return { code: 'malformed_request' };
  }
}

/**
 * Fastify's clientErrorHandler: errors of Node's HTTP parser and its timeouts (no Fastify request exists
 * yet), written straight to the socket in the envelope with a request id of their own.
 */
export function writeClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { code, message } = clientErrorCode(error.code);
  const requestId = randomUUID();
  // A response already under way cannot be followed by another one on the same socket.
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  const answered = socket.writable && !inFlight?.headersSent;
  if (answered) writeRawError(socket, new AppError(code, message), requestId);
  // A connection closed on a request it had begun to read, by a timeout or with no answer possible, is a warning:
  // the client sees only a closed socket (issue 44, C1), so the log must say which bound closed it.
  if (answered && code !== 'request_timeout') this.log.info({ reqId: requestId, code, cause: error.code }, 'client error');
  else this.log.warn({ reqId: requestId, code, cause: error.code, answered }, 'connection closed on an unfinished request');
  socket.destroy();
}

/** The envelope written straight to a socket no Fastify request owns, closing the connection after it. */
function writeRawError(socket: Duplex, error: AppError, requestId: string, extraHeaders = ''): void {
  const status = ERRORS[error.code].status;
  const body = JSON.stringify(errorEnvelope(error, requestId));
  socket.write(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\n${extraHeaders}Connection: close\r\n\r\n${body}`,
  );
}

/**
 * Node hands a CONNECT to the server's 'connect' listeners and, with none, destroys the socket without a word.
 * This is no proxy: 405 in the envelope, then the connection closes (the tunnel's bytes are never read).
 */
function refuseConnect(app: FastifyInstance, req: IncomingMessage, socket: Duplex): void {
  const requestId = randomUUID();
  app.log.info({ reqId: requestId, method: req.method, target: String(req.url ?? '').slice(0, 200) }, 'CONNECT refused');
  socket.on('error', () => {});
  if (socket.writable) {
    writeRawError(
      socket,
      new AppError('method_not_allowed', 'CONNECT is not supported: this service is not a proxy'),
      requestId,
      'Allow: GET, HEAD, POST, PUT, PATCH, DELETE\r\n',
    );
  }
  socket.end(() => socket.destroy());
}

/**
 * Node answers a request whose Expect is anything but 100-continue with an empty 417 of its own unless someone
 * listens; this writes it in the envelope, like every other error, and closes the connection (the body was not read).
 */
function expectationFailed(app: FastifyInstance, req: IncomingMessage, res: ServerResponse): void {
  const requestId = randomUUID();
  const expect = String(req.headers.expect ?? '').slice(0, 100);
  app.log.info({ reqId: requestId, expect }, 'unsupported Expect');
  const body = JSON.stringify(
    errorEnvelope(
      new AppError('expectation_failed', `Expect: ${JSON.stringify(expect)} is not supported; only "100-continue" is`),
      requestId,
    ),
  );
  res.writeHead(417, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
    connection: 'close',
  });
  res.end(body);
}

/** Methods a path may be answered with; HEAD comes with every GET. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The methods some route answers `path` with, the dashboard's catch-all aside (it answers any path with its page). */
function allowedMethods(app: FastifyInstance, path: string): string[] {
  return METHODS.filter((method) => {
    const route = app.findRoute({ method, url: path });
    return route !== null && !Object.hasOwn(route.params ?? {}, '*');
  });
}

/** Fastify's frameworkErrors: router-level failures (a bad percent-encoding in the URL) before any route runs. */
export function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const code: ErrorCode = error.code === 'FST_ERR_BAD_URL' ? 'bad_url' : 'bad_request';
  const message = code === 'bad_request' ? error.message : undefined;
  void reply
    .status(ERRORS[code].status)
    .type('application/json; charset=utf-8')
    .header('X-Request-Id', request.id)
    .send(errorEnvelope(new AppError(code, message), request.id));
}

/** One JSON error body for everything, our errors and the framework's, with a request id beside it. */
async function errors(app: FastifyInstance): Promise<void> {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as AppError, undefined);
    }
  });
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    const { status, body, headers, kind } = errorAnswer(error);
    if (kind === 'unavailable') request.log.warn({ err: { message: error.message, code: error.code } }, 'database unavailable');
    else if (kind === 'internal') request.log.error({ err: error }, 'unhandled error');
    else if (status >= 500 && error instanceof AppError) request.log.warn({ code: error.code }, error.message);
    return reply
      .status(status)
      .headers(headers)
      .type('application/json; charset=utf-8')
      .send({ ...body, request_id: request.id });
  });

  app.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => expectationFailed(app, req, res));
  app.server.on('connect', (req: IncomingMessage, socket: Duplex) => refuseConnect(app, req, socket));
  // Node's own check (requireHostHeader, off in app.ts) answers an empty 400; this one answers in the envelope.
  app.addHook('onRequest', async (request) => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      throw new AppError('malformed_request', 'An HTTP/1.1 request must carry a Host header');
    }
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    // A path that exists with other methods: 405 naming them, in the header HTTP defines and in the message.
    const allowed = allowedMethods(app, path);
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      return reply
        .status(405)
        .header('Allow', allowed.join(', '))
        .send(
          errorEnvelope(
            new AppError('method_not_allowed', `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}`),
            request.id,
          ),
        );
    }
    return reply.status(404).send(errorEnvelope(new AppError('route_not_found', `No endpoint ${request.method} ${path}`), request.id));
  });
}

export const errorsPlugin = fp(errors, { name: 'voxsmith-errors' });
