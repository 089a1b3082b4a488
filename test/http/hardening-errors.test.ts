import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { ERRORS } from '../../src/schemas/errors.ts';
import { startServer } from '../helpers/server.ts';
import { useService } from '../helpers/fixture.ts';

// Every error a client can get carries the one envelope: errors from the HTTP parser and the router once came
// without it (Fastify's own {"error":"Bad Request","message":"Client Error"}, no request_id, or no body at all).

interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** Sends bytes exactly as given and reads until the server closes (or the first response is complete). */
function raw(base: string, request: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer within 20 s'));
    }, 20_000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...headerLines] = head.split('\r\n');
      const headers = new Map(headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    socket.write(request);
  });
}

function assertEnvelope(answer: RawAnswer, status: number, code: string, what: string): { error: string } {
  assert.equal(answer.status, status, `${what}: status`);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/, `${what}: JSON`);
  const body = JSON.parse(answer.body) as { error: string; code: string; request_id: string };
  assert.deepEqual(Object.keys(body).sort(), ['code', 'error', 'request_id'], what);
  assert.equal(body.code, code, what);
  assert.equal(typeof body.error, 'string', what);
  assert.match(body.request_id, /^[0-9a-f-]{36}$/, `${what}: request_id`);
  assert.equal(answer.headers.get('x-request-id'), body.request_id, `${what}: X-Request-Id matches`);
  return body;
}

describe('every error in the envelope', () => {
  const s = useService();

  test('errors of the HTTP parser: unknown method, bad Content-Length, TE + CL, a 20 KB header', async () => {
    const host = 'Host: voxsmith.test\r\n';
    const cases: Array<[string, string, number, string, RegExp]> = [
      ['unknown method', `FROB / HTTP/1.1\r\n${host}\r\n`, 400, 'malformed_request', /method/i],
      [
        'bad Content-Length',
        `POST /api/auth/logout HTTP/1.1\r\n${host}Content-Length: abc\r\n\r\n`,
        400,
        'malformed_request',
        /Content-Length/,
      ],
      [
        'Transfer-Encoding and Content-Length',
        `POST /api/auth/logout HTTP/1.1\r\n${host}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
        400,
        'malformed_request',
        /Transfer-Encoding/,
      ],
      ['20 KB header', `GET /healthz HTTP/1.1\r\n${host}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'headers_too_large', /too large/],
    ];
    for (const [what, request, status, code, message] of cases) {
      const body = assertEnvelope(await raw(s.base, request), status, code, what);
      assert.match(body.error, message, what);
    }
  });

  test('a bad percent-encoding in the path', async () => {
    const answer = await raw(s.base, 'GET /api/voices/%E0%A4%A HTTP/1.1\r\nHost: voxsmith.test\r\nConnection: close\r\n\r\n');
    assertEnvelope(answer, 400, 'bad_url', 'bad URL');
  });

  test('__proto__ and constructor.prototype in a JSON body say so', async () => {
    for (const [body, key] of [
      ['{"text": "hi", "__proto__": {"admin": true}}', '__proto__'],
      ['{"email": "a@example.com", "constructor": {"prototype": {"x": 1}}}', 'constructor'],
    ]) {
      const res = await s.request('/api/auth/login', { body, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 400);
      const answer = (await res.json()) as { error: string; code: string; request_id: string };
      assert.equal(answer.code, 'forbidden_json_key');
      assert.ok(answer.error.includes(key), answer.error);
      assert.ok(!/not valid JSON/.test(answer.error));
      assert.ok(answer.request_id);
    }
    const broken = await s.request('/api/auth/login', { body: '{"email": ', headers: { 'content-type': 'application/json' } });
    assert.equal(broken.status, 400);
    assert.equal(((await broken.json()) as { code: string }).code, 'invalid_json');
    const plain = await s.request('/api/auth/login', { json: { email: 'fine@example.com', note: { constructor: 'x' } } });
    assert.notEqual(plain.status, 500, 'an ordinary "constructor" string value is no poisoning');
  });
});

describe('Expect and methods, in the envelope', () => {
  const s = useService();

  test('an Expect other than 100-continue: 417 expectation_failed with the envelope, not an empty answer', async () => {
    for (const expect of ['999', 'something-else']) {
      const answer = await raw(
        s.base,
        `POST /v1/speak HTTP/1.1\r\nHost: x\r\nExpect: ${expect}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
      );
      const body = assertEnvelope(answer, 417, 'expectation_failed', `Expect: ${expect}`);
      assert.match(body.error, /100-continue/);
    }
    // 100-continue itself is honoured: the body is asked for and the request answered as usual.
    const ok = await raw(s.base, 'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n');
    assert.equal(ok.status, 100);
  });

  test('CONNECT: 405 method_not_allowed in the envelope, not a silently closed socket', async () => {
    for (const target of ['example.com:443', '127.0.0.1:22']) {
      const answer = await raw(s.base, `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
      const body = assertEnvelope(answer, 405, 'method_not_allowed', `CONNECT ${target}`);
      assert.match(body.error, /CONNECT/);
    }
  });

  test('HTTP/1.1 without Host: 400 malformed_request in the envelope (HTTP/1.0 without it is still served)', async () => {
    const answer = await raw(s.base, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n');
    const body = assertEnvelope(answer, 400, 'malformed_request', 'no Host');
    assert.match(body.error, /Host/);
    const posted = await raw(
      s.base,
      'POST /v1/speak HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
    );
    assertEnvelope(posted, 400, 'malformed_request', 'no Host, a POST');
    const old = await raw(s.base, 'GET /healthz HTTP/1.0\r\n\r\n');
    assert.equal(old.status, 200);
  });

  test('a method a path does not take: 405 method_not_allowed with Allow, in the envelope', async () => {
    const cases: Array<[string, string, string]> = [
      // GET /v1/speak is Deepgram's WebSocket (a plain GET gets its own 405, tested with the socket).
      ['PUT', '/v1/speak', 'GET, HEAD, POST'],
      ['GET', '/v1/audio/speech', 'POST'],
      ['PATCH', '/api/auth/api-keys', 'GET, HEAD, POST, DELETE'],
      ['POST', '/api/voices', 'GET, HEAD'],
      ['DELETE', '/api/lexicons/anything/pls', 'PUT'],
      ['POST', '/healthz', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const answer = await raw(s.base, `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      const body = assertEnvelope(answer, 405, 'method_not_allowed', `${method} ${path}`);
      assert.equal(answer.headers.get('allow'), allow, `${method} ${path}: Allow`);
      assert.ok(body.error.includes(allow), body.error);
    }
    // A path nothing answers stays 404; so do the dashboard's own pages asked with another method.
    for (const [method, path] of [
      ['POST', '/v1/nothing-here'],
      ['GET', '/api/nothing'],
      ['POST', '/keys'],
    ]) {
      const answer = await raw(s.base, `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      assertEnvelope(answer, 404, 'route_not_found', `${method} ${path}`);
    }
  });
});

describe('the error codes users read about', () => {
  test('docs/api.md lists every code the server declares, each with its status, and no other', async () => {
    const s = await startServer();
    try {
      // The error body the OpenAPI document gives every operation: its `code` lists the catalogue.
      const doc = (await (await s.request('/openapi.json')).json()) as unknown;
      const find = (node: unknown): string[] | undefined => {
        if (typeof node !== 'object' || node === null) return undefined;
        const codes = (node as { properties?: { code?: { enum?: string[] } } }).properties?.code?.enum;
        if (codes) return codes;
        for (const child of Object.values(node)) {
          const found = find(child);
          if (found) return found;
        }
        return undefined;
      };
      const declared = find(doc);
      assert.ok(declared && declared.length > 0, 'the error body schema names its codes');
      assert.deepEqual([...declared].sort(), Object.keys(ERRORS).sort(), 'the OpenAPI document names every code of the catalogue');
      const markdown = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
      const table = markdown.slice(markdown.indexOf('## Error codes'));
      const rows = [...table.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((m) => [m[2], Number(m[1])] as const);
      assert.deepEqual(rows.map(([code]) => code).sort(), [...declared].sort(), 'the table and the OpenAPI document name the same codes');
      for (const [code, status] of rows) assert.equal(status, ERRORS[code as keyof typeof ERRORS].status, code);
    } finally {
      await s.close();
    }
  });
});
