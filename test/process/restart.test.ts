import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SmtpSink } from '../helpers/smtp-sink.ts';
import { startProcess } from '../helpers/process.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'voxsmith-restart-'));
const mail = new SmtpSink();
after(async () => {
  await mail.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function post(base: string, path: string, json: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(json) });
}

test('users, sessions and keys survive kill -9; SIGTERM shuts down cleanly', async () => {
  const env = { DATA_DIR: dataDir, SMTP_URL: await mail.start(), PUBLIC_URL: 'http://voxsmith.test' };
  const first = await startProcess(env);
  let cookie: string;
  let key: string;
  let userId: string;
  try {
    assert.equal((await post(first.base, '/api/auth/login', { email: 'durable@example.com' })).status, 200);
    const token = await mail.tokenFor('durable@example.com');
    const verify = await post(first.base, '/api/auth/verify', { token });
    assert.equal(verify.status, 200);
    userId = ((await verify.json()) as { user: { id: string } }).user.id;
    cookie = verify.headers.getSetCookie()[0].split(';')[0];
    const created = await post(first.base, '/api/auth/api-keys', { name: 'durable' }, { cookie, origin: 'http://voxsmith.test' });
    assert.equal(created.status, 201);
    key = ((await created.json()) as { key: string }).key;
  } finally {
    // No graceful shutdown: whatever was acknowledged must already be on disk.
    await first.stop('SIGKILL');
  }

  const second = await startProcess(env);
  try {
    const session = await fetch(`${second.base}/api/auth/session`, { headers: { cookie } });
    assert.equal(((await session.json()) as { user: { id: string } | null }).user?.id, userId);
    const keys = await fetch(`${second.base}/api/auth/api-keys`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(keys.status, 200);
    assert.equal(((await keys.json()) as { keys: unknown[] }).keys.length, 1);
  } finally {
    const code = await second.stop('SIGTERM');
    assert.equal(code, 0, 'SIGTERM drains and exits 0');
    assert.match(second.output(), /shutting down/);
  }

  const logs = first.output() + second.output();
  assert.ok(!logs.includes(key.slice(23, 55)), 'key secret not in the log');
  const dbText = readdirSync(dataDir)
    .filter((f) => f.startsWith('voxsmith.db'))
    .map((f) => readFileSync(join(dataDir, f)).toString('latin1'))
    .join('');
  assert.ok(!dbText.includes(key.slice(23, 55)), 'key secret not in the database');
});

test('a bad configuration value stops start-up with a clear message', async () => {
  await assert.rejects(startProcess({ DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: 'lots' }), /RATE_LIMIT_PER_MINUTE must be a whole number/);
});
