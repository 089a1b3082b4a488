import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { CONFIG_VARIABLES, ConfigError, loadConfig } from '../src/config.ts';
import { ConfigSchema } from '../src/config-schema.ts';
import { defaultOf } from '../src/env-schema.ts';

test('defaults: port 8080, ./data, SQLite, local mail, 10 000 characters', () => {
  const c = loadConfig({});
  assert.equal(c.port, 8080);
  assert.ok(c.dataDir.endsWith('/data'));
  assert.equal(c.databaseUrl, null);
  assert.equal(c.smtpUrl, null);
  assert.equal(c.maxTextChars, 10_000);
  assert.equal(c.rateLimitPerMinute, 60);
  assert.equal(c.publicOrigin, 'http://localhost:8080');
  assert.ok(Object.isFrozen(c));
});

test('https PUBLIC_URL makes cookies Secure', () => {
  assert.equal(loadConfig({ PUBLIC_URL: 'https://tts.example.com' }).secureCookies, true);
});

for (const [name, env, pattern] of [
  ['bad port', { PORT: 'eighty' }, /PORT/],
  ['port out of range', { PORT: '70000' }, /PORT/],
  ['bad url', { PUBLIC_URL: 'not a url' }, /PUBLIC_URL/],
  ['wrong database scheme', { DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
  ['wrong redis scheme', { REDIS_URL: 'http://x' }, /REDIS_URL/],
  ['negative limit', { RATE_LIMIT_PER_MINUTE: '-5' }, /RATE_LIMIT_PER_MINUTE/],
  ['zero text', { MAX_TEXT_CHARS: '0' }, /MAX_TEXT_CHARS/],
] as const) {
  test(`refuses ${name} with a clear message`, () => {
    assert.throws(
      () => loadConfig(env),
      (err: unknown) => err instanceof ConfigError && pattern.test(err.message),
    );
  });
}

test('WARM_UP: full by default; minimal accepted; anything else refused naming the variable', () => {
  assert.equal(loadConfig({}).warmUp, 'full');
  assert.equal(loadConfig({ WARM_UP: 'minimal' }).warmUp, 'minimal');
  assert.throws(
    () => loadConfig({ WARM_UP: 'lazy' }),
    (err: unknown) => err instanceof ConfigError && /WARM_UP must be one of full, minimal/.test(err.message),
  );
});

test('TRUST_PROXY: off by default; true, hop counts and address lists accepted; garbage refused', () => {
  assert.equal(loadConfig({}).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
  assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
  assert.deepEqual(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8' }).trustProxy, ['127.0.0.1', '10.0.0.0/8']);
  assert.throws(() => loadConfig({ TRUST_PROXY: 'everyone' }), /TRUST_PROXY/);
});

test('LOUDNESS_TARGET_LUFS: -18 by default; decimals and off accepted; out of range or garbage refused', () => {
  assert.equal(loadConfig({}).loudnessTargetLufs, -18);
  assert.equal(loadConfig({ LOUDNESS_TARGET_LUFS: '-23.5' }).loudnessTargetLufs, -23.5);
  assert.equal(loadConfig({ LOUDNESS_TARGET_LUFS: 'off' }).loudnessTargetLufs, null);
  assert.throws(() => loadConfig({ LOUDNESS_TARGET_LUFS: '0' }), /LOUDNESS_TARGET_LUFS must be between/);
  assert.throws(() => loadConfig({ LOUDNESS_TARGET_LUFS: 'loud' }), /LOUDNESS_TARGET_LUFS must be a number or off/);
});

test('Wyoming: on by default at 127.0.0.1:10200; off turns it off; 0 picks a port; garbage refused', () => {
  assert.equal(loadConfig({}).wyomingPort, 10200);
  assert.equal(loadConfig({}).wyomingHost, '127.0.0.1');
  assert.equal(loadConfig({ WYOMING_PORT: 'off' }).wyomingPort, null);
  assert.equal(loadConfig({ WYOMING_PORT: '0' }).wyomingPort, 0);
  assert.throws(() => loadConfig({ WYOMING_PORT: 'on' }), /WYOMING_PORT must be a port number or off/);
  assert.throws(
    () => loadConfig({ WYOMING_PORT: 'off', WYOMING_API_KEY: 'service_sk_x' }),
    /WYOMING_API_KEY is set but WYOMING_PORT is off/,
  );
});

test('origins: without PUBLIC_URL the own-address rule applies; ALLOWED_ORIGINS are origins, normalized', () => {
  assert.equal(loadConfig({}).publicUrlSet, false);
  assert.equal(loadConfig({ PUBLIC_URL: 'https://tts.example.com' }).publicUrlSet, true);
  assert.deepEqual(loadConfig({ ALLOWED_ORIGINS: 'http://LOCALHOST:5173, https://tts.example.com:443' }).allowedOrigins, [
    'http://localhost:5173',
    'https://tts.example.com',
  ]);
  assert.throws(() => loadConfig({ ALLOWED_ORIGINS: 'http://x.example/path' }), /ALLOWED_ORIGINS: .* without a path/);
  assert.throws(() => loadConfig({ ALLOWED_ORIGINS: 'ftp://x.example' }), /ALLOWED_ORIGINS: .* http or https/);
  assert.throws(() => loadConfig({ ALLOWED_ORIGINS: 'not an origin' }), /ALLOWED_ORIGINS/);
});

/** The rows of README.md's configuration table: the variables each names, and its default column. */
function readmeRows(): Array<{ names: string[]; defaults: string }> {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Configuration\n'));
  const table = section.slice(0, section.indexOf('\n## ', 1));
  return table
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [first, defaults] = line.split('|').slice(1, 3);
      return { names: [...first.matchAll(/`([^`]+)`/g)].map((m) => m[1]), defaults: defaults.trim() };
    });
}

test("README's configuration table lists every variable the service reads, and only those", () => {
  const rows = readmeRows();
  const documented = rows.flatMap((r) => r.names);
  assert.ok(rows.length > 20, 'the table is found');
  assert.deepEqual(
    CONFIG_VARIABLES.filter((name) => !documented.includes(name)),
    [],
    'variables missing from the table',
  );
  assert.deepEqual(
    documented.filter((name) => !CONFIG_VARIABLES.includes(name)),
    [],
    'table rows naming no variable',
  );
  assert.equal(new Set(documented).size, documented.length, 'each variable has one row');
});

test("README's numeric defaults are the schema's", () => {
  let compared = 0;
  for (const { names, defaults } of readmeRows()) {
    const parts = defaults.split(' / ');
    if (parts.length !== names.length) continue;
    names.forEach((name, i) => {
      const fallback = defaultOf(ConfigSchema, name);
      if (typeof fallback !== 'number') return;
      assert.equal(Number(/^-?\d+/.exec(parts[i])?.[0]), fallback, `${name}'s default in README.md`);
      compared++;
    });
  }
  assert.ok(compared > 25, `${compared} numeric defaults compared`);
});
