import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { SchemaCompilations } from '../../src/http/lazy-schemas.ts';

function appWith(schemas: SchemaCompilations) {
  const app = Fastify({ schemaController: schemas.controller(), ajv: { customOptions: { coerceTypes: false, removeAdditional: false } } });
  app.post(
    '/echo',
    {
      schema: {
        body: { type: 'object', required: ['n'], properties: { n: { type: 'integer', minimum: 1 } }, additionalProperties: false },
        response: { 200: { type: 'object', properties: { n: { type: 'integer' } } } },
      },
    },
    async (request) => ({ n: (request.body as { n: number }).n, secret: 'not in the schema' }),
  );
  return app;
}

test('a route schema compiles on first use and validates and serializes as Fastify would', async () => {
  const schemas = new SchemaCompilations();
  const app = appWith(schemas);
  await app.ready();
  const waitingAtBoot = schemas.size;
  assert.ok(waitingAtBoot >= 2, `the validator and the serializer wait (${waitingAtBoot})`);

  const bad = await app.inject({ method: 'POST', url: '/echo', payload: { n: 0 } });
  assert.equal(bad.statusCode, 400);
  assert.match(bad.json<{ message: string }>().message, /must be >= 1/);
  const unknown = await app.inject({ method: 'POST', url: '/echo', payload: { n: 2, x: 1 } });
  assert.equal(unknown.statusCode, 400, 'additionalProperties: false holds');

  const ok = await app.inject({ method: 'POST', url: '/echo', payload: { n: 3 } });
  assert.equal(ok.statusCode, 200);
  assert.deepEqual(ok.json(), { n: 3 }, 'the response serializer dropped the field outside its schema');
  assert.equal(schemas.size, waitingAtBoot - 2, 'both compiled on first use');
  await app.close();
});

test('what was not used yet compiles in the background, one schema per turn', async () => {
  const schemas = new SchemaCompilations();
  const app = appWith(schemas);
  await app.ready();
  assert.ok(schemas.size > 0);
  schemas.compileWaiting();
  for (let i = 0; i < 50 && schemas.size > 0; i++) await new Promise((r) => setImmediate(r));
  assert.equal(schemas.size, 0);
  const bad = await app.inject({ method: 'POST', url: '/echo', payload: { n: 'x' } });
  assert.equal(bad.statusCode, 400);
  await app.close();
});
