import { readFileSync } from 'node:fs';
import fp from 'fastify-plugin';
import swagger, { type SwaggerTransform } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { docsUiOptions } from './docs-ui.ts';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { ERRORS, ErrorBody } from '../../schemas/errors.ts';
import type { KeyScope } from '../../schemas/api-keys.ts';
import { requireAuth, scopeGuarded } from './auth.ts';

/** A route as registered (method and URL pattern), for the check that the document covers them all. */
export interface RegisteredRoute {
  method: string;
  url: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered after the OpenAPI plugin, HEAD twins included. */
    registeredRoutes: readonly RegisteredRoute[];
  }
}

/** Served but not API: the dashboard's static files and client-side routes, and the reference page's own files. */
export const UNDOCUMENTED = [/^\/\*$/, /^\/assets\//, /^\/docs(\/|$)/];

export function isDocumented(url: string): boolean {
  return !UNDOCUMENTED.some((re) => re.test(url));
}

// `format: binary` rather than contentMediaType: Swagger UI invents random bytes as the example of the latter.
const binary = { type: 'string', format: 'binary', description: 'The audio file’s bytes' } as const;

/** The 200 of an endpoint that answers with audio: one content type per output format. */
export function audioResponse(description: string): Record<string, unknown> {
  return {
    description,
    headers: {
      'X-Voice-Id': { type: 'string', description: 'The voice that spoke' },
      'X-Sample-Rate': { type: 'integer', description: 'Sample rate of the audio, in Hz' },
    },
    content: {
      'audio/mpeg': { schema: binary },
      'audio/wav': { schema: binary },
      'audio/ogg': { schema: binary },
      'audio/flac': { schema: binary },
      'audio/pcm': { schema: binary },
    },
  };
}

/** The 200 of a page for people. */
export function htmlResponse(description: string): Record<string, unknown> {
  return { description, content: { 'text/html': { schema: { type: 'string' } } } };
}

function errorResponse(
  description: string,
  example: { code: keyof typeof ERRORS; error?: string },
  headers?: Record<string, unknown>,
): TSchema {
  return {
    ...ErrorBody,
    description,
    examples: [
      { error: example.error ?? ERRORS[example.code].message, code: example.code, request_id: '3b0f1c2e-8d4a-4c55-9f3e-1f2a3b4c5d6e' },
    ],
    ...(headers ? { headers } : {}),
  } as TSchema;
}

const RATE_HEADERS = {
  'Retry-After': { type: 'integer', minimum: 1, description: 'Whole seconds to wait before retrying' },
  RateLimit: { type: 'string', description: 'Remaining requests and seconds to reset (IETF httpapi draft)' },
  'RateLimit-Policy': { type: 'string', description: 'Quota and window (IETF httpapi draft)' },
};

interface Section {
  name: string;
  description: string;
  /** Path prefixes of its routes; `=` before a path: that path alone. */
  paths: readonly string[];
}

/**
 * The document's sections, in reading order. A route belongs to the section with the longest of its paths that
 * fits the route's (so /api/auth/api-keys is not Auth), and to Operations when none fits. Routes that name
 * their tags (the ElevenLabs ones) keep them.
 */
const SECTIONS: readonly Section[] = [
  { name: 'Auth', description: 'Passwordless sign-in for the dashboard (magic link, cookie session)', paths: ['/api/auth', '=/verify'] },
  { name: 'API keys', description: 'Keys for programmatic access; the full key is shown once', paths: ['/api/auth/api-keys'] },
  { name: 'Voices', description: 'The voice library: built-in voices plus your own', paths: ['/api/voices'] },
  { name: 'Speech', description: 'Text to speech over HTTP', paths: ['/v1/'] },
  {
    name: 'Jobs',
    description: 'Long-form speech: books and long documents as chaptered audiobooks, rendered on every node',
    paths: ['/v1/jobs'],
  },
  { name: 'Streaming', description: 'Text to speech over WebSocket, float32 PCM at 24 kHz', paths: ['/v1/ws'] },
  { name: 'Forge', description: 'New voices: cloning from a sample, breeding two voices', paths: ['/v1/forge'] },
  { name: 'OpenAI compatible', description: 'Drop-in replacement for OpenAI’s speech endpoint', paths: ['/v1/audio'] },
  { name: 'ElevenLabs compatible', description: 'ElevenLabs’ text-to-speech and voice routes, for clients built on their API', paths: [] },
  { name: 'Account', description: 'Usage of the signed-in account', paths: ['/api/'] },
  {
    name: 'Lexicons',
    description: 'Pronunciation lexicons: aliases and phonemes for words, per request or as your default',
    paths: ['/api/lexicons', '=/v1/phonemize'],
  },
  { name: 'Operations', description: 'Health, readiness, metrics, this document', paths: [] },
  { name: 'Pages', description: 'HTML pages for people', paths: ['=/'] },
];

const TAGS = SECTIONS.map(({ name, description }) => ({ name, description }));

function tagFor(url: string): string {
  let best = { name: 'Operations', length: -1 };
  for (const { name, paths } of SECTIONS) {
    for (const path of paths) {
      const whole = path.startsWith('=');
      const fits = whole ? url === path.slice(1) : url.startsWith(path);
      if (fits && path.length > best.length) best = { name, length: path.length };
    }
  }
  return best.name;
}

function routeHooks(route: RouteOptions): unknown[] {
  return [route.preValidation, route.preHandler].flat();
}

function usesRequireAuth(route: RouteOptions): boolean {
  return routeHooks(route).some((h) => h === requireAuth || scopeGuarded(h) !== undefined);
}

/** The key scope a route needs, if any. */
function requiredScope(route: RouteOptions): KeyScope | undefined {
  for (const h of routeHooks(route)) {
    const scope = scopeGuarded(h);
    if (scope) return scope;
  }
  return undefined;
}

/** A key (with `scope`, named as the requirement's role, as OpenAPI 3.1 allows for non-OAuth schemes) or a session. */
function authenticated(scope: KeyScope | undefined): ReadonlyArray<Record<string, readonly string[]>> {
  return [{ apiKey: scope ? [scope] : [] }, { session: [] }];
}

/**
 * Fills in what every operation shares, so each route file says only what is its own: a tag from the path,
 * the security of routes behind requireAuth, and the error answers (400, 401, 429, default) with the error body.
 */
const transform: SwaggerTransform = ({ schema: given, url, route }) => {
  // Routes declared without a schema come with none.
  const schema: FastifySchema = given ?? {};
  if (!isDocumented(url)) return { schema: { ...schema, hide: true }, url };
  const out: FastifySchema = { ...schema };
  // @fastify/websocket hides its routes; the stream is part of the API, so it is shown.
  if ((route as { websocket?: boolean }).websocket) out.hide = false;
  out.tags ??= [tagFor(url)];
  const websocket = (route as { websocket?: boolean }).websocket === true;
  const isAuthenticated = usesRequireAuth(route) || websocket;
  const scope = websocket ? 'speech' : requiredScope(route);
  if (isAuthenticated) out.security ??= authenticated(scope);
  if (scope) (out as Record<string, unknown>)['x-required-scope'] = scope;
  const responses: Record<string, unknown> = { ...(schema.response as object | undefined) };
  if (!Object.keys(responses).some((status) => status.startsWith('2') || status === '101')) {
    responses['200'] = { description: 'Success', type: 'object', additionalProperties: true };
  }
  if (out.body || out.querystring || out.params)
    responses['400'] ??= errorResponse('The request is invalid', { code: 'validation', error: 'body.text is required' });
  if (isAuthenticated) responses['401'] ??= errorResponse('No valid API key or session', { code: 'unauthorized' });
  if (scope) responses['403'] ??= errorResponse(`The API key lacks the \`${scope}\` scope`, { code: 'insufficient_scope' });
  const limited = route.config?.rateLimit !== undefined || url.startsWith('/v1/');
  if (limited)
    responses['429'] ??= errorResponse(
      'Over the rate limit (`rate_limited`) or, for speech, over MAX_CONCURRENT_PER_KEY syntheses at once (`concurrency_limited`): wait Retry-After seconds',
      { code: 'rate_limited' },
      RATE_HEADERS,
    );
  responses.default ??= errorResponse('Any other failure', { code: 'internal' });
  out.response = responses;
  return { schema: out, url };
};

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

/**
 * Where "Try it out" sends requests. Without PUBLIC_URL the service answers on every address it has (127.0.0.1, a
 * LAN address, localhost), so the server is relative: it resolves against the address the document was fetched
 * from. A fixed localhost there made every call from another address fail in the browser.
 */
function documentServer(config: FastifyInstance['config']): { url: string; description: string } {
  if (config.publicUrlSet) return { url: config.publicUrl.href.replace(/\/$/, ''), description: 'PUBLIC_URL' };
  return { url: '/', description: 'The address this page was loaded from' };
}

/**
 * The OpenAPI 3.1 document at /openapi.json, generated from the route schemas, and the interactive reference
 * at /docs. Register it before any route: it learns routes as they are added.
 */
async function openapi(app: FastifyInstance): Promise<void> {
  const routes: RegisteredRoute[] = [];
  app.decorate('registeredRoutes', routes);
  app.addHook('onRoute', (route) => {
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) routes.push({ method, url: route.url });
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Voxsmith',
        version: packageVersion(),
        description:
          'Self-hosted text to speech: REST API, a WebSocket stream, API keys and passwordless sign-in, voice cloning and ' +
          'breeding, and an OpenAI-compatible speech endpoint. Every error is a non-2xx status with `{"error", "code", "request_id"}`.',
        license: { name: 'GPL-3.0-or-later', identifier: 'GPL-3.0-or-later' },
      },
      servers: [documentServer(app.config)],
      tags: TAGS,
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer service_sk_…`' },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: 'vox_session',
            description: 'The dashboard session (writes need Origin = PUBLIC_URL)',
          },
          xiApiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'xi-api-key',
            description: 'An API key in ElevenLabs’ header (the same keys as Bearer)',
          },
          streamToken: { type: 'apiKey', in: 'query', name: 'token', description: 'The API key on the WebSocket address' },
          metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, when set' },
        },
      },
    },
    transform,
  });

  app.get(
    '/openapi.json',
    {
      schema: {
        summary: 'This OpenAPI 3.1 document',
        tags: ['Operations'],
        response: {
          200: {
            description: 'OpenAPI 3.1 document',
            content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } },
          },
        },
      },
    },
    async (_request, reply) =>
      reply.header('Cache-Control', 'no-cache').type('application/json; charset=utf-8').send(JSON.stringify(app.swagger())),
  );

  await app.register(swaggerUi, docsUiOptions());
}

export const openapiPlugin = fp(openapi, { name: 'voxsmith-openapi' });
