import { readFileSync } from 'node:fs';
import fp from 'fastify-plugin';
import swagger, { type SwaggerTransform } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { ERRORS } from '../../errors.ts';
import { requireAuth } from './auth.ts';

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

const requestId = Type.String({ format: 'uuid', description: 'The id of the request, also in the X-Request-Id header and on its log lines' });

/** The one error body (SPEC §7): `error` is the message, `code` a machine-readable code from the catalogue. */
export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'What went wrong, for people' }),
    code: Type.String({ enum: Object.keys(ERRORS), description: 'What went wrong, for programs' }),
    request_id: requestId,
  },
  {
    description: 'Every failure: a non-2xx status with this body',
    examples: [{ error: 'No voice "robot-9"', code: 'voice_not_found', request_id: '3b0f1c2e-8d4a-4c55-9f3e-1f2a3b4c5d6e' }],
  },
);

/** A voice as the API shows it; further fields may be added (clients should ignore what they do not know). */
export const VoiceSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$', description: 'Stable, URL-safe id, used as voice_id' }),
    name: Type.String(),
    language: Type.String({ description: 'BCP 47 tag, e.g. en-US' }),
    language_name: Type.String({ description: 'English name of the language' }),
    // Plain strings with an enum, not unions: the response serializer must never refuse a voice.
    gender: Type.String({ enum: ['female', 'male', 'neutral'] }),
    engine: Type.String({ description: 'The engine that speaks it (espeak, flite)' }),
    source: Type.String({ enum: ['builtin', 'clone', 'breed'] }),
    description: Type.String(),
    tags: Type.Array(Type.String(), { description: 'Accent and region words, native language name, style words' }),
    parents: Type.Optional(Type.Array(Type.String(), { description: 'The two parent voice ids of a bred voice' })),
    created_at: Type.Optional(Type.String({ format: 'date-time' })),
  },
  {
    additionalProperties: true,
    examples: [
      {
        id: 'flite-slt',
        name: 'Sally',
        language: 'en-US',
        language_name: 'English',
        gender: 'female',
        engine: 'flite',
        source: 'builtin',
        description: 'Female American English voice: United States. Clear and natural.',
        tags: ['american', 'united states', 'us'],
      },
    ],
  },
);

export const VoiceList = Type.Object({ voices: Type.Array(VoiceSchema) });

const binary = { type: 'string', contentMediaType: 'application/octet-stream' } as const;

/** The 200 of an endpoint that answers with audio: one content type per output format. */
export function audioResponse(description: string): Record<string, unknown> {
  return {
    description,
    headers: {
      'X-Voice-Id': { type: 'string', description: 'The voice that spoke' },
      'X-Sample-Rate': { type: 'integer', description: 'Sample rate of the audio, in Hz' },
    },
    content: {
      'audio/mpeg': { schema: { ...binary, contentMediaType: 'audio/mpeg' } },
      'audio/wav': { schema: { ...binary, contentMediaType: 'audio/wav' } },
      'audio/ogg': { schema: { ...binary, contentMediaType: 'audio/ogg' } },
      'audio/flac': { schema: { ...binary, contentMediaType: 'audio/flac' } },
      'audio/pcm': { schema: { ...binary, contentMediaType: 'audio/pcm' } },
    },
  };
}

function errorResponse(description: string, example: { code: keyof typeof ERRORS; error?: string }, headers?: Record<string, unknown>): TSchema {
  return {
    ...ErrorBody,
    description,
    examples: [{ error: example.error ?? ERRORS[example.code].message, code: example.code, request_id: '3b0f1c2e-8d4a-4c55-9f3e-1f2a3b4c5d6e' }],
    ...(headers ? { headers } : {}),
  } as TSchema;
}

const RATE_HEADERS = {
  'Retry-After': { type: 'integer', minimum: 1, description: 'Whole seconds to wait before retrying' },
  RateLimit: { type: 'string', description: 'Remaining requests and seconds to reset (IETF httpapi draft)' },
  'RateLimit-Policy': { type: 'string', description: 'Quota and window (IETF httpapi draft)' },
};

const TAGS = [
  { name: 'Auth', description: 'Passwordless sign-in for the dashboard (magic link, cookie session)' },
  { name: 'API keys', description: 'Keys for programmatic access; the full key is shown once' },
  { name: 'Voices', description: 'The voice library: built-in voices plus your own' },
  { name: 'Speech', description: 'Text to speech over HTTP' },
  { name: 'Streaming', description: 'Text to speech over WebSocket, float32 PCM at 24 kHz' },
  { name: 'Forge', description: 'New voices: cloning from a sample, breeding two voices' },
  { name: 'OpenAI compatible', description: 'Drop-in replacement for OpenAI’s speech endpoint' },
  { name: 'Account', description: 'Usage of the signed-in account' },
  { name: 'Operations', description: 'Health, readiness, metrics, this document' },
  { name: 'Pages', description: 'HTML pages for people' },
];

function tagFor(url: string): string {
  if (url.startsWith('/api/auth/api-keys')) return 'API keys';
  if (url.startsWith('/api/auth') || url === '/verify') return 'Auth';
  if (url.startsWith('/api/voices')) return 'Voices';
  if (url.startsWith('/v1/forge')) return 'Forge';
  if (url.startsWith('/v1/ws')) return 'Streaming';
  if (url.startsWith('/v1/audio')) return 'OpenAI compatible';
  if (url.startsWith('/v1/')) return 'Speech';
  if (url.startsWith('/api/')) return 'Account';
  if (url === '/') return 'Pages';
  return 'Operations';
}

/** Endpoints whose route files carry no documentation of their own (the forge's): summaries from SPEC §4. */
const FALLBACK: Record<string, FastifySchema> = {
  'GET /healthz': {
    summary: 'Liveness',
    description: 'The process is up. No credentials.',
    response: { 200: { description: 'Up', ...Type.Object({ status: Type.Literal('ok') }) } },
  },
  'GET /readyz': {
    summary: 'Readiness',
    description: 'Every readiness check passes (database, Redis when configured, engines); else 503 naming what failed.',
    response: {
      200: { description: 'Ready', ...Type.Object({ status: Type.Literal('ready'), checks: Type.Record(Type.String(), Type.String()) }) },
      503: { description: 'Not ready: the error body plus `status` and `checks`', ...ErrorBody },
    },
  },
  'GET /verify': {
    summary: 'Sign-in page of the e-mailed link',
    description: 'An HTML page with a button that posts the token to /api/auth/verify; opening it consumes nothing.',
    response: { 200: { description: 'HTML page', content: { 'text/html': { schema: { type: 'string' } } } } },
  },
  'GET /': {
    summary: 'The dashboard',
    description: 'The web app (sign in, keys, voices, playground). Its client routes are served the same page.',
    response: { 200: { description: 'HTML page', content: { 'text/html': { schema: { type: 'string' } } } } },
  },
  'GET /api/voices/:id': {
    summary: 'Get one voice',
    description: 'A built-in voice, or one of your own (with its genome and measurements). Another user’s voice is 404.',
    response: { 200: { description: 'The voice', ...Type.Object({ voice: VoiceSchema }) } },
  },
  'DELETE /api/voices/:id': {
    summary: 'Delete one of your voices',
    description: 'Built-in voices cannot be deleted (403).',
    response: { 200: { description: 'Deleted', ...Type.Object({ id: Type.String(), deleted: Type.Boolean() }) } },
  },
  'POST /v1/forge/clone': {
    summary: 'Clone a voice',
    description: 'multipart/form-data: `audio` (a speech sample: wav, mp3, ogg, flac), `name`, `language`. Answers 201 `{voice}`.',
    consumes: ['multipart/form-data'],
    body: Type.Object({
      audio: Type.String({ contentMediaType: 'application/octet-stream', description: 'A speech sample of a few seconds or more (10 MiB at most)' }),
      name: Type.String({ maxLength: 100 }),
      language: Type.Optional(Type.String({ description: 'BCP 47 tag of the sample’s language, e.g. en-US' })),
    }),
    response: { 201: { description: 'The new voice', ...Type.Object({ voice: VoiceSchema }) } },
  },
  'POST /v1/forge/breed': {
    summary: 'Breed two voices',
    description: 'Crossover of the parents’ genes plus mutation scaled by `mutation_rate`; `seed` makes it repeatable. Answers 201 `{voice}` with `parents`.',
    body: Type.Object(
      {
        parent_a: Type.String({ description: 'A voice id' }),
        parent_b: Type.String({ description: 'A voice id' }),
        name: Type.String({ maxLength: 100 }),
        mutation_rate: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
        seed: Type.Optional(Type.Integer({ minimum: 0, description: 'Same parents, rate and seed: the same voice' })),
      },
      { examples: [{ parent_a: 'flite-slt', parent_b: 'espeak-en-gb-female-1', name: 'Blend', mutation_rate: 0.1 }] },
    ),
    response: { 201: { description: 'The new voice', ...Type.Object({ voice: VoiceSchema }) } },
  },
};

function usesRequireAuth(route: RouteOptions): boolean {
  const handlers = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler];
  return handlers.some((h) => h === requireAuth);
}

const AUTHENTICATED: ReadonlyArray<Record<string, readonly string[]>> = [{ apiKey: [] }, { session: [] }];

/**
 * Fills in what every operation shares, so each route file says only what is its own: a tag from the path,
 * the security of routes behind requireAuth, and the error answers (400, 401, 429, default) with the error body.
 */
const transform: SwaggerTransform = ({ schema: given, url, route }) => {
  // Routes declared without a schema come with none.
  const schema: FastifySchema = given ?? {};
  if (!isDocumented(url)) return { schema: { ...schema, hide: true }, url };
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const fallback = methods.map((m) => FALLBACK[`${m} ${url}`]).find((f) => f !== undefined);
  const out: FastifySchema = { ...fallback, ...schema };
  // @fastify/websocket hides its routes; the stream is part of the API, so it is shown.
  if ((route as { websocket?: boolean }).websocket) out.hide = false;
  out.tags ??= [tagFor(url)];
  const authenticated = usesRequireAuth(route) || (route as { websocket?: boolean }).websocket === true;
  if (authenticated) out.security ??= AUTHENTICATED;
  const responses: Record<string, unknown> = { ...(fallback?.response as object), ...(schema.response as object | undefined) };
  if (!Object.keys(responses).some((status) => status.startsWith('2') || status === '101')) {
    responses['200'] = { description: 'Success', type: 'object', additionalProperties: true };
  }
  if (out.body || out.querystring || out.params) responses['400'] ??= errorResponse('The request is invalid', { code: 'validation', error: 'body.text is required' });
  if (authenticated) responses['401'] ??= errorResponse('No valid API key or session', { code: 'unauthorized' });
  const limited = route.config?.rateLimit !== undefined || url.startsWith('/v1/');
  if (limited) responses['429'] ??= errorResponse('Over the rate limit: wait Retry-After seconds', { code: 'rate_limited' }, RATE_HEADERS);
  responses.default ??= errorResponse('Any other failure', { code: 'internal' });
  out.response = responses;
  return { schema: out, url };
};

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

/**
 * The OpenAPI 3.1 document at /openapi.json, generated from the route schemas, and the interactive reference
 * at /docs. Register it before any route: it learns routes as they are added.
 */
export const openapiPlugin = fp(async function openapi(app: FastifyInstance) {
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
      servers: [{ url: app.config.publicUrl.href.replace(/\/$/, '') }],
      tags: TAGS,
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer service_sk_…`' },
          session: { type: 'apiKey', in: 'cookie', name: 'vox_session', description: 'The dashboard session (writes need Origin = PUBLIC_URL)' },
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
        response: { 200: { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } } } },
      },
    },
    async (_request, reply) => reply.header('Cache-Control', 'no-cache').type('application/json; charset=utf-8').send(JSON.stringify(app.swagger())),
  );

  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true, uiConfig: { deepLinking: true, tryItOutEnabled: false } });
});
