// /openapi.json: a valid OpenAPI 3.1 document that covers every route the server registers; /docs renders it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { isDocumented } from '../../src/http/plugins/openapi.ts';
import { useService } from '../helpers/fixture.ts';

interface Operation {
  summary?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  requestBody?: { content: Record<string, { schema?: unknown; example?: unknown; examples?: unknown }> };
  responses: Record<string, { description: string; content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> }>;
}
type Doc = {
  openapi: string;
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown> };
};

let doc: Doc;
const s = useService({}, async () => {
  const res = await s.request('/openapi.json');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  doc = (await res.json()) as Doc;
});

/** Fastify's `/api/voices/:id` is OpenAPI's `/api/voices/{id}`. */
const openapiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function operation(method: string, path: string): Operation | undefined {
  return doc.paths[path]?.[method.toLowerCase()];
}

describe('/openapi.json', () => {
  test('validates as OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Record<string, unknown>);
    assert.equal(validator.version, '3.1');
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  });

  test('with PUBLIC_URL set, its one server is PUBLIC_URL', () => {
    assert.deepEqual(
      doc.servers.map((server) => server.url),
      [new URL(s.app.config.publicUrl).href.replace(/\/$/, '')],
    );
  });

  test('covers every route the server registers (bar the dashboard’s files and /docs’ own)', () => {
    const registered = s.app.registeredRoutes.filter((r) => r.method !== 'HEAD' && isDocumented(r.url));
    assert.ok(registered.length >= 20, `${registered.length} routes`);
    const missing = registered.filter((r) => !operation(r.method, openapiPath(r.url)));
    assert.deepEqual(missing, [], 'routes missing from the document');
    // Nothing documented that the server does not serve.
    const served = new Set(registered.map((r) => `${r.method} ${openapiPath(r.url)}`));
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item)) assert.ok(served.has(`${method.toUpperCase()} ${path}`), `${method} ${path} is not served`);
    }
  });

  test('every endpoint the service offers is there', () => {
    for (const [method, path] of [
      ['POST', '/api/auth/api-keys'],
      ['GET', '/api/auth/api-keys'],
      ['DELETE', '/api/auth/api-keys'],
      ['POST', '/api/auth/login'],
      ['POST', '/api/auth/verify'],
      ['GET', '/api/auth/session'],
      ['POST', '/api/auth/logout'],
      ['GET', '/api/voices'],
      ['GET', '/api/voices/search'],
      ['POST', '/v1/speak'],
      ['POST', '/v1/forge/clone'],
      ['POST', '/v1/forge/breed'],
      ['GET', '/v1/ws/stream'],
      ['POST', '/v1/audio/speech'],
      ['GET', '/metrics'],
      ['GET', '/openapi.json'],
      ['GET', '/healthz'],
      ['GET', '/readyz'],
      ['GET', '/api/usage'],
    ] as const) {
      const op = operation(method, path);
      assert.ok(op, `${method} ${path}`);
      assert.ok(op.summary && op.summary.length > 3, `${method} ${path} has a summary`);
      assert.ok(op.tags && op.tags.length > 0, `${method} ${path} has a tag`);
    }
  });

  test('every operation documents the error body; authenticated ones their security, 401 and 429', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        const failure = op.responses.default;
        assert.ok(failure, `${where}: default error response`);
        const props = failure.content?.['application/json']?.schema?.properties ?? {};
        assert.deepEqual(Object.keys(props).sort(), ['code', 'error', 'request_id'], where);
        if (path.startsWith('/v1/')) assert.ok(op.responses['429'], `${where}: 429`);
      }
    }
    for (const [method, path] of [
      ['POST', '/v1/speak'],
      ['GET', '/api/auth/api-keys'],
      ['POST', '/v1/audio/speech'],
      ['POST', '/v1/text-to-speech/{voice_id}'],
    ] as const) {
      const op = operation(method, path) as Operation;
      assert.ok(
        op.security?.some((s) => 'apiKey' in s),
        `${method} ${path}: security`,
      );
      assert.ok(op.responses['401'], `${method} ${path}: 401`);
    }
    assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ['apiKey', 'metricsToken', 'session', 'streamToken', 'xiApiKey']);
    assert.ok(
      (operation('POST', '/v1/text-to-speech/{voice_id}') as Operation).security?.some((s) => 'xiApiKey' in s),
      'ElevenLabs routes name their key header',
    );
  });

  test('request bodies come from the route schemas, with examples; audio answers name their media types', () => {
    const speak = operation('POST', '/v1/speak') as Operation;
    const body = speak.requestBody?.content['application/json'];
    assert.ok(body?.schema, 'speak body schema');
    assert.ok(body.example ?? body.examples, 'speak body example');
    const schema = body.schema as { required: string[]; properties: Record<string, unknown> };
    assert.deepEqual(schema.required, ['text']);
    assert.deepEqual(Object.keys(schema.properties).sort(), [
      'format',
      'lexicons',
      'sample_rate',
      'speed',
      'text',
      'text_type',
      'voice_id',
    ]);
    for (const type of ['audio/mpeg', 'audio/wav', 'audio/ogg', 'audio/flac', 'audio/pcm']) {
      assert.ok(speak.responses['200'].content?.[type], type);
    }
    const openai = operation('POST', '/v1/audio/speech') as Operation;
    const openaiBody = openai.requestBody?.content['application/json'].schema as { required: string[] };
    assert.deepEqual([...openaiBody.required].sort(), ['input', 'model', 'voice']);
    const voices = operation('GET', '/api/voices') as Operation;
    assert.ok(voices.responses['200'].content?.['application/json']?.schema?.properties?.voices, 'voice list schema');
  });
});

describe('/docs', () => {
  test('serves the interactive reference, which loads the same document', async () => {
    const page = await s.request('/docs');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    assert.match(await page.text(), /swagger-ui/i);
    const init = await s.request('/docs/static/swagger-initializer.js');
    assert.equal(init.status, 200);
    const json = await s.request('/docs/json');
    assert.equal(json.status, 200);
    assert.deepEqual(Object.keys(((await json.json()) as Doc).paths).sort(), Object.keys(doc.paths).sort());
  });
});
