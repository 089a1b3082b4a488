// `npx voxsmith voices ...` as a user runs it (the package's bin, as its own process), against a local catalogue
// in Piper's and Kokoro's real formats: listing, installing (verified, resumed after a cut), refusing a file whose
// checksum is wrong with nothing left behind, listing what is installed, removing, and an unreachable catalogue.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCatalogServer, type CatalogServer } from '../helpers/voice-catalog-server.ts';

const BIN = new URL('../../scripts/voxsmith.mjs', import.meta.url).pathname;
let catalog: CatalogServer;
let dir: string;

before(async () => {
  catalog = await startCatalogServer({
    piper: [
      { key: 'en_US-lessac-medium', paddingBytes: 300_000 },
      { key: 'en_US-ryan-high' },
      { key: 'de_DE-thorsten-medium' },
      { key: 'en_GB-broken-medium', wrongChecksum: true },
    ],
    cutOnce: ['/piper/en/en_US/lessac/medium/en_US-lessac-medium.onnx'],
  });
  dir = mkdtempSync(join(tmpdir(), 'voxsmith-cli-'));
});
after(async () => {
  await catalog.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function voxsmith(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        env: {
          ...process.env,
          VOICES_DIR: join(dir, 'voices'),
          VOICES_CATALOG_URL: catalog.catalogUrl,
          KOKORO_FILES_URL: catalog.kokoroUrl,
          ...env,
        },
        timeout: 120_000,
      },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const voicesDir = () => join(dir, 'voices');
const listing = () => (existsSync(voicesDir()) ? readdirSync(voicesDir()).sort() : []);

test('voices available --lang en lists the catalogue’s English voices and the Kokoro bundles, with sizes', async () => {
  const run = await voxsmith(['voices', 'available', '--lang', 'en']);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /en_US-lessac-medium\s+English \(United States\)\s+medium\s+\d+ kB/);
  assert.match(run.stdout, /en_US-ryan-high/);
  assert.match(run.stdout, /kokoro-v1\.0-int8/);
  assert.doesNotMatch(run.stdout, /de_DE-thorsten/, 'German voices are filtered out');
  const json = await voxsmith(['voices', 'available', '--lang', 'de', '--json']);
  const voices = JSON.parse(json.stdout) as { name: string; files: { name: string; md5?: string }[] }[];
  assert.deepEqual(
    voices.map((v) => v.name),
    ['de_DE-thorsten-medium'],
  );
  assert.deepEqual(
    voices[0].files.map((f) => f.name),
    ['de_DE-thorsten-medium.onnx.json', 'de_DE-thorsten-medium.onnx'],
    'the model card is not a file to install',
  );
});

test('voices add installs a Piper voice and a Kokoro bundle: a cut download resumes with Range, both verify', async () => {
  const run = await voxsmith(['voices', 'add', 'en_US-lessac-medium', 'kokoro-v1.0-int8']);
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  assert.deepEqual(listing(), ['en_US-lessac-medium.onnx', 'en_US-lessac-medium.onnx.json', 'kokoro-v1.0.int8.onnx', 'voices-v1.0.bin']);
  for (const [name, path] of [
    ['en_US-lessac-medium.onnx', catalog.piperPath('en_US-lessac-medium', '.onnx')],
    ['kokoro-v1.0.int8.onnx', '/kokoro/kokoro-v1.0.int8.onnx'],
  ]) {
    assert.ok(readFileSync(join(voicesDir(), name)).equals(catalog.files.get(path) as Buffer), `${name} is the served file, byte for byte`);
  }
  // The first GET of the model was cut half way; the next asked for the rest.
  const model = catalog.requests.filter((r) => r.path === catalog.piperPath('en_US-lessac-medium', '.onnx'));
  const size = (catalog.files.get(catalog.piperPath('en_US-lessac-medium', '.onnx')) as Buffer).length;
  assert.equal(model.length, 2, JSON.stringify(model));
  assert.equal(model[0].range, undefined);
  assert.equal(model[1].range, `bytes=${model[0].bytes}-`);
  assert.equal(model[0].bytes + model[1].bytes, size, 'no byte fetched twice');
  // Not a terminal: plain progress lines, and what was installed.
  assert.match(run.stdout, /Installing en_US-lessac-medium \(\d+ kB\)/);
  assert.match(run.stdout, /en_US-lessac-medium: \d+ kB of \d+ kB \(\d+%\)/);
  assert.doesNotMatch(run.stdout, /\r/, 'no carriage returns outside a terminal');
  assert.match(run.stdout, /Installed en_US-lessac-medium: size and MD5 verified\. Voice: piper-en-us-lessac-medium\./);
  assert.match(
    run.stdout,
    /Installed kokoro-v1\.0-int8: size and SHA-256 verified\. Voices: kokoro-af-heart, kokoro-am-michael, kokoro-bf-emma\./,
  );
  assert.ok(!existsSync(join(voicesDir(), '.partial')), 'no staging folder is left');

  const again = await voxsmith(['voices', 'add', 'en_US-lessac-medium']);
  assert.equal(again.code, 0);
  assert.match(again.stdout, /already installed/);
});

test('a file whose checksum does not match is refused, and nothing of it is left behind', async () => {
  const before = listing();
  const run = await voxsmith(['voices', 'add', 'en_GB-broken-medium']);
  assert.equal(run.code, 1);
  assert.match(
    run.stderr,
    /en_GB-broken-medium was not installed: en_GB-broken-medium\.onnx: MD5 [0-9a-f]{32} does not match the catalogue's [0-9a-f]{32}; the download was deleted/,
  );
  assert.deepEqual(listing(), before, 'VOICES_DIR is as it was');
});

test('voices list shows what is installed with its voice ids; remove takes it out', async () => {
  const list = await voxsmith(['voices', 'list']);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /en_US-lessac-medium\s+piper\s+\d+ kB\s+piper-en-us-lessac-medium/);
  assert.match(list.stdout, /kokoro-v1\.0-int8\s+kokoro\s+[\d.]+ MB\s+kokoro-af-heart, kokoro-am-michael, kokoro-bf-emma/);
  const json = JSON.parse((await voxsmith(['voices', 'list', '--json'])).stdout) as { name: string; voices: string[] }[];
  assert.deepEqual(
    json.map((v) => v.name),
    ['en_US-lessac-medium', 'kokoro-v1.0-int8'],
  );

  const removed = await voxsmith(['voices', 'remove', 'kokoro-v1.0-int8']);
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(removed.stdout, /Removed kokoro-v1\.0-int8 \(kokoro-v1\.0\.int8\.onnx, voices-v1\.0\.bin\)/);
  assert.deepEqual(listing(), ['en_US-lessac-medium.onnx', 'en_US-lessac-medium.onnx.json']);
  const missing = await voxsmith(['voices', 'remove', 'kokoro-v1.0-int8']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /kokoro-v1\.0-int8 is not installed/);
});

test('an unreachable catalogue is a clear message and exit code 1, not a crash', async () => {
  catalog.setDown(true);
  try {
    const run = await voxsmith(['voices', 'available']);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /^voxsmith: cannot read the voice catalogue at http:\/\/127\.0\.0\.1:\d+\/piper\/voices\.json: .*HTTP 503.* point VOICES_CATALOG_URL at a mirror/,
    );
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
  } finally {
    catalog.setDown(false);
  }
  const nowhere = await voxsmith(['voices', 'add', 'en_US-ryan-high'], { VOICES_CATALOG_URL: 'http://127.0.0.1:9/voices.json' });
  assert.equal(nowhere.code, 1);
  assert.match(nowhere.stderr, /cannot reach 127\.0\.0\.1:9/);
  const usage = await voxsmith(['voices', 'add']);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /voices add needs at least one voice name/);
  const unknown = await voxsmith(['voices', 'add', 'en_US-nobody-medium']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no voice named en_US-nobody-medium in the catalogue/);
});
