// Property-based test: arbitrary and near-miss JSON bodies to the JSON endpoints never give a
// 5xx or a hang, every 4xx is the error envelope, and the server is healthy afterwards.
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { useService } from '../helpers/fixture.ts';
import { assertClean, assertHealthy, post, PROPERTY_ENV } from '../helpers/property.ts';

const s = useService({ env: PROPERTY_ENV, user: 'property-json@example.com' });

/** Values a field should not hold: wrong types, huge and odd numbers, unicode, prototype names. */
const oddValue = fc.oneof(
  fc.constantFrom(null, true, [], {}, '', '__proto__', 'constructor', 'prototype', 'toString', '\u202e', '\u0000', 'x'.repeat(5000)),
  fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -0, 0.000001, 1e-320),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 60, unit: 'binary' }),
  fc.jsonValue({ maxDepth: 2 }),
);

/** Objects that look almost right for one endpoint: its field names, some odd values, a prototype key. */
function nearMiss(fields: string[]): fc.Arbitrary<string> {
  const keys = fc.constantFrom(...fields, '__proto__', 'constructor', 'prototype', '\u00e9t\u00e9', '');
  return fc.tuple(fc.dictionary(keys, oddValue, { maxKeys: 6 }), fc.boolean()).map(([obj, protoKey]) => {
    const text = JSON.stringify(obj);
    // JSON.stringify drops an own "__proto__" key set through an object literal; write it by hand.
    return protoKey ? text.replace(/^\{/, text === '{}' ? '{"__proto__":{"x":1}' : '{"__proto__":{"x":1},') : text;
  });
}

const anyJson = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'null');
/** Text that is not quite JSON. */
const brokenJson = fc.tuple(anyJson, fc.nat(40)).map(([t, cut]) => t.slice(0, Math.max(0, t.length - 1 - cut)));

const ENDPOINTS: Array<{ path: string; fields: string[]; auth: 'key' | 'origin' }> = [
  { path: '/v1/speak', fields: ['text', 'voice_id', 'format', 'speed', 'engine', 'language'], auth: 'key' },
  { path: '/v1/audio/speech', fields: ['model', 'input', 'voice', 'response_format', 'speed', 'instructions'], auth: 'key' },
  { path: '/api/auth/login', fields: ['email', 'redirect', 'next'], auth: 'origin' },
  { path: '/v1/forge/breed', fields: ['parents', 'name', 'seed', 'mutation_rate', 'parent_a', 'parent_b'], auth: 'key' },
];

describe('property: JSON bodies', () => {
  for (const endpoint of ENDPOINTS) {
    test(`${endpoint.path}: no 5xx, the envelope on every 4xx`, async () => {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (endpoint.auth === 'key') headers.authorization = `Bearer ${s.key}`;
      else headers.origin = s.origin;
      await fc.assert(
        fc.asyncProperty(fc.oneof(anyJson, nearMiss(endpoint.fields), brokenJson), async (body) => {
          assertClean(await post(s, endpoint.path, body, headers), `${endpoint.path} ${body.slice(0, 200)}`);
        }),
        { numRuns: 100, seed: 16 + endpoint.path.length },
      );
    });
  }

  test('the server is healthy afterwards', async () => {
    await assertHealthy(s, s.key);
  });
});
