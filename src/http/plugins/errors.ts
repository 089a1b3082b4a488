import fp from 'fastify-plugin';
import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError, ERRORS, errorBody, type ErrorCode } from '../../errors.ts';
import { isStoreUnavailable } from '../../store/unavailable.ts';

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

function describeValidation(error: FastifyError): string {
  const first = error.validation?.[0];
  if (!first) return error.message;
  const where = error.validationContext ?? 'request';
  const path = first.instancePath ? first.instancePath.slice(1).replace(/\//g, '.') : '';
  const missing = (first.params as { missingProperty?: string } | undefined)?.missingProperty;
  const field = missing ?? path;
  return field ? `${where}.${field} ${first.message ?? 'is invalid'}` : `${where} ${first.message ?? 'is invalid'}`;
}

/** One JSON error body for everything, our errors and the framework's, with a request id beside it. */
export const errorsPlugin = fp(async function errors(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    let status: number;
    let body: { error: string; code: string };
    if (error instanceof AppError) {
      status = error.status;
      body = error.body();
      reply.headers(error.headers);
    } else if (error.validation) {
      status = 400;
      body = errorBody('validation', describeValidation(error));
    } else if (error.code && FRAMEWORK_CODES[error.code]) {
      const code = FRAMEWORK_CODES[error.code];
      status = ERRORS[code].status;
      body = errorBody(code, code === 'invalid_json' ? `Request body is not valid JSON: ${error.message}` : undefined);
    } else if (isStoreUnavailable(error)) {
      // The database is down or unreachable: a quick 503 the client may retry, not a hang or a 500.
      status = 503;
      body = errorBody('unavailable', 'The database is unavailable; retry shortly');
      reply.header('Retry-After', '2');
      request.log.warn({ err: { message: error.message, code: error.code } }, 'database unavailable');
    } else if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      status = error.statusCode;
      body = { error: error.message, code: 'bad_request' };
    } else {
      request.log.error({ err: error }, 'unhandled error');
      status = 500;
      body = errorBody('internal');
    }
    if (status >= 500 && error instanceof AppError) request.log.warn({ code: error.code }, error.message);
    return reply.status(status).type('application/json; charset=utf-8').send({ ...body, request_id: request.id });
  });

  app.setNotFoundHandler((request, reply) => {
    return reply.status(404).send({ ...errorBody('route_not_found', `No endpoint ${request.method} ${request.url.split('?')[0]}`), request_id: request.id });
  });
});
