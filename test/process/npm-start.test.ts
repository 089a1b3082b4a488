// `npm start` runs the compiled service (dist/, built by scripts/build.mjs), not the sources the other tests
// load through tsx: this drives that build the way a user's first request would.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess } from '../helpers/process.ts';
import { SmtpSink } from '../helpers/smtp-sink.ts';
import { deleteRedisPrefix, dropSchema, randomPrefix, randomSchema, TEST_PG_URL, TEST_REDIS_URL } from '../helpers/stores.ts';
import { decodeWav, medianPitch, speechSeconds } from '../synth/helpers.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'voxsmith-npm-start-'));
const mail = new SmtpSink();
after(async () => {
  await mail.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const post = (base: string, path: string, json: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(json) });

test('npm start serves the compiled build: sign-in, a key, and speech in the default voice', async () => {
  const service = await startProcess(
    { DATA_DIR: dataDir, SMTP_URL: await mail.start(), PUBLIC_URL: 'http://voxsmith.test', WORKERS: '1' },
    'npm-start',
  );
  try {
    assert.match(service.output(), /Server listening/);
    assert.doesNotMatch(service.output(), /through tsx/, 'dist/ was built, not the tsx fallback');
    assert.equal((await post(service.base, '/api/auth/login', { email: 'compiled@example.com' })).status, 200);
    const verify = await post(service.base, '/api/auth/verify', { token: await mail.tokenFor('compiled@example.com') });
    assert.equal(verify.status, 200);
    const cookie = verify.headers.getSetCookie()[0].split(';')[0];
    const created = await post(service.base, '/api/auth/api-keys', { name: 'compiled' }, { cookie, origin: 'http://voxsmith.test' });
    assert.equal(created.status, 201);
    const { key } = (await created.json()) as { key: string };

    const res = await post(
      service.base,
      '/v1/speak',
      { text: 'The compiled service speaks as well as the sources do.', format: 'wav' },
      { authorization: `Bearer ${key}` },
    );
    assert.equal(res.status, 200, await res.clone().text());
    const audio = decodeWav(new Uint8Array(await res.arrayBuffer()));
    assert.equal(audio.rate, 24_000);
    const speech = speechSeconds(audio);
    assert.ok(speech > 1.5 && speech < 6, `about three seconds of speech, got ${speech.toFixed(2)} s`);
    // The default voice is flite slt, a female voice around 165 Hz.
    const pitch = medianPitch(audio);
    assert.ok(pitch > 130 && pitch < 220, `slt's pitch, got ${pitch.toFixed(0)} Hz`);
  } finally {
    assert.equal(await service.stop('SIGTERM'), 0);
  }
});

// The build bundles the app (scripts/build.mjs): what reads files beside its own module (the docs theme, the
// catalog, package.json, the dashboard) and what loads on demand (PostgreSQL, Redis) must work from the bundle.
test('the bundled build reads its own files and loads PostgreSQL and Redis on demand', async () => {
  const schema = randomSchema('bundle');
  const prefix = randomPrefix('bundle');
  const service = await startProcess(
    {
      DATA_DIR: dataDir,
      DATABASE_URL: `${TEST_PG_URL}?schema=${schema}`,
      REDIS_URL: `${TEST_REDIS_URL}?prefix=${prefix}`,
      WORKERS: '1',
    },
    'npm-start',
  );
  try {
    const ready = await fetch(`${service.base}/readyz`);
    const checks = JSON.stringify(await ready.json());
    assert.equal(ready.status, 200, checks);
    assert.match(checks, /database/);
    assert.match(checks, /redis/);
    const docs = await fetch(`${service.base}/docs`);
    assert.equal(docs.status, 200);
    assert.match(await docs.text(), /<html/i);
    const openapi = (await (await fetch(`${service.base}/openapi.json`)).json()) as { info: { version: string } };
    assert.match(openapi.info.version, /^\d+\.\d+\.\d+/, 'the version read from package.json');
    const dashboard = await fetch(`${service.base}/`);
    assert.equal(dashboard.status, 200);
    assert.match(await dashboard.text(), /<script/i);
    const found = (await (await fetch(`${service.base}/api/voices/search?q=british%20female`)).json()) as {
      voices: { language: string }[];
    };
    assert.equal(found.voices[0].language, 'en-GB');
  } finally {
    assert.equal(await service.stop('SIGTERM'), 0);
    await dropSchema(schema);
    await deleteRedisPrefix(prefix);
  }
});
