// Structured logs: JSON lines, a request id on every request line and in every error body, no secret anywhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { VoxsmithClient } from '../../client/index.ts';
import { useService } from '../helpers/fixture.ts';

const METRICS_TOKEN = 'metrics-token-5b8e1d';

const s = useService({ env: { METRICS_TOKEN } });

interface LogLine {
  level: number;
  msg?: string;
  reqId?: string;
  req?: { url: string };
  res?: { statusCode: number };
}

test('a session of real traffic leaves no key, token or cookie in the log, and a request id on every request line', async () => {
  const secrets: string[] = [METRICS_TOKEN];
  // Sign-in: the magic-link token travels through mail and a POST body.
  const before = s.mail.messages.length;
  assert.equal((await s.request('/api/auth/login', { json: { email: 'logged@example.com' } })).status, 200);
  const token = await s.mail.tokenFor('logged@example.com', before);
  secrets.push(token);
  const verify = await s.request('/api/auth/verify', { json: { token } });
  const cookie = (verify.headers.getSetCookie().find((c) => c.startsWith('vox_session=')) ?? '').split(';')[0];
  secrets.push(cookie.slice('vox_session='.length));
  const created = (await (await s.request('/api/auth/api-keys', { json: { name: 'logs' }, cookie, sameOrigin: true })).json()) as {
    key: string;
  };
  secrets.push(created.key, created.key.slice('service_sk_'.length));

  const client = new VoxsmithClient({ baseUrl: s.base, apiKey: created.key, WebSocket });
  await client.speak({ text: 'Nothing secret is logged.', format: 'pcm' });
  await client.openaiSpeech({ model: 'tts-1', voice: 'alloy', input: 'Nor here.', response_format: 'pcm' });
  for await (const _ of client.stream({ text: 'The key rides in the query string.' })) {
    // drain
  }
  await client.metrics(METRICS_TOKEN);
  // Credentials that fail are as secret as those that work.
  const wrongKey = `service_sk_${'x'.repeat(40)}`;
  secrets.push(wrongKey);
  assert.equal((await s.request('/api/voices', { bearer: wrongKey })).status, 401);
  assert.equal((await s.request(`/api/voices?api_key=${wrongKey}&access_token=${wrongKey}`)).status, 200);
  const failed = await s.request('/v1/speak', { json: { text: 'Hi.', voice_id: 'robot-9' }, bearer: created.key });
  assert.equal(failed.status, 404);
  const failedBody = (await failed.json()) as { error: string; request_id: string };

  await new Promise((r) => setTimeout(r, 100));
  const text = s.logs.join('');
  for (const secret of secrets) assert.ok(secret.length >= 16 && !text.includes(secret), `a secret (${secret.slice(0, 6)}…) is in the log`);
  // Secret query parameters stay visible as names, their values replaced ("[redacted]", URL-encoded).
  assert.match(text, /\/v1\/ws\/stream\?token=%5Bredacted%5D/);
  assert.match(text, /api_key=%5Bredacted%5D&access_token=%5Bredacted%5D/);

  const lines = text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as LogLine);
  const requestLines = lines.filter((l) => l.req !== undefined || l.res !== undefined);
  assert.ok(requestLines.length >= 16, `${requestLines.length} request lines`);
  for (const line of requestLines) assert.match(line.reqId ?? '', /^[0-9a-f-]{36}$/, JSON.stringify(line));

  // The error body's request_id is the header's and finds the request's own log lines.
  assert.equal(failedBody.request_id, failed.headers.get('x-request-id'));
  const own = lines.filter((l) => l.reqId === failedBody.request_id);
  assert.ok(
    own.some((l) => l.res?.statusCode === 404),
    'the failed request is logged with its id',
  );
});
