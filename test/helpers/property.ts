// Shared checks of the property-based tests: whatever a client sends, the answer comes in time,
// is never a 5xx, every 4xx is the one error envelope, and the server still serves afterwards.
import assert from 'node:assert/strict';
import type { TestServer } from './server.ts';

/** A hang fails the test through this abort, not through a timing assertion. */
export const REQUEST_TIMEOUT_MS = 20_000;

/** Limits raised so that hundreds of probes on one key meet the checks under test, not the rate limiter. */
export const PROPERTY_ENV: Record<string, string> = {
  RATE_LIMIT_PER_MINUTE: '1000000',
  AUTH_FAILURE_LIMIT_PER_MINUTE: '1000000',
  LOGIN_RATE_LIMIT_PER_MINUTE: '1000000',
  LOGIN_ADDRESS_LIMIT_PER_HOUR: '1000000',
};

/** POSTs raw bytes to the server, aborting if no complete answer comes in time. */
export async function post(
  s: TestServer,
  path: string,
  body: Uint8Array | string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  const res = await fetch(`${s.base}${path}`, { method: 'POST', headers, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  return { status: res.status, text: await res.text() };
}

/** No 5xx; a 4xx carries exactly the envelope's three string fields. */
export function assertClean(res: { status: number; text: string }, what: string): void {
  assert.ok(res.status < 500, `${what}: ${res.status} ${res.text.slice(0, 300)}`);
  if (res.status < 400) return;
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    assert.fail(`${what}: ${res.status} body is not JSON: ${res.text.slice(0, 300)}`);
  }
  assert.ok(body !== null && typeof body === 'object', `${what}: ${res.text.slice(0, 300)}`);
  const b = body as Record<string, unknown>;
  for (const field of ['error', 'code', 'request_id']) {
    assert.equal(typeof b[field], 'string', `${what}: ${res.status} "${field}" missing: ${res.text.slice(0, 300)}`);
  }
}

/** /healthz answers 200 and an ordinary synthesis still returns audio. */
export async function assertHealthy(s: TestServer, key: string): Promise<void> {
  const health = await fetch(`${s.base}/healthz`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  assert.equal(health.status, 200);
  const speak = await fetch(`${s.base}/v1/speak`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'Still here.', format: 'wav' }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  assert.equal(speak.status, 200, await speak.clone().text());
  const wav = Buffer.from(await speak.arrayBuffer());
  assert.equal(wav.toString('ascii', 0, 4), 'RIFF');
  // More than a header: at least 0.2 s of 16-bit audio at the lowest rate the service speaks.
  assert.ok(wav.length > 44 + 0.2 * 8000 * 2, `only ${wav.length} bytes of WAV`);
}
