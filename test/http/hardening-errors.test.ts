import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startServer, type TestServer } from '../helpers/server.ts';

// Finding 8 of the outside security test: errors from the HTTP parser and the router came without the
// envelope (Fastify's own {"error":"Bad Request","message":"Client Error"}, no request_id, or no body at all).

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
  let s: TestServer;
  before(async () => {
    s = await startServer();
  });
  after(async () => {
    await s.close();
  });

  test('errors of the HTTP parser: unknown method, bad Content-Length, TE + CL, a 20 KB header', async () => {
    const host = 'Host: voxsmith.test\r\n';
    const cases: Array<[string, string, number, string, RegExp]> = [
      ['unknown method', `FROB / HTTP/1.1\r\n${host}\r\n`, 400, 'malformed_request', /method/i],
      ['bad Content-Length', `POST /api/auth/logout HTTP/1.1\r\n${host}Content-Length: abc\r\n\r\n`, 400, 'malformed_request', /Content-Length/],
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
