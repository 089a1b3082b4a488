// The installer on its own: what a cut that never recovers leaves (nothing), what an interruption leaves (the
// bytes so far, resumed by the next run with Range), two installs of one voice at once (one download), the
// catalogue's safety checks, and the progress shown on a terminal and off one.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { progressPrinter } from '../../src/cli/progress.ts';
import { kokoroCatalog, loadCatalog, parsePiperCatalog, type CatalogVoice } from '../../src/voices/install/catalog.ts';
import { installVoice, STAGING_DIR } from '../../src/voices/install/installer.ts';
import { SourceError } from '../../src/voices/install/source.ts';
import { startCatalogServer, type CatalogServer } from '../helpers/voice-catalog-server.ts';

let catalog: CatalogServer;
let voices: CatalogVoice[];
const dirs: string[] = [];
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'voxsmith-install-'));
  dirs.push(d);
  return d;
};

before(async () => {
  catalog = await startCatalogServer({
    piper: [
      { key: 'en_US-lessac-medium', paddingBytes: 400_000 },
      { key: 'en_US-amy-low', paddingBytes: 200_000 },
    ],
    throttleMs: { '/piper/en/en_US/lessac/medium/en_US-lessac-medium.onnx': 30, '/piper/en/en_US/amy/low/en_US-amy-low.onnx': 20 },
  });
  voices = await loadCatalog({ catalogUrl: new URL(catalog.catalogUrl), kokoroFilesUrl: new URL(catalog.kokoroUrl) });
});
after(async () => {
  await catalog.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const voice = (name: string) => voices.find((v) => v.name === name) as CatalogVoice;

test('a source that goes away mid-download: after the retries, a clear error and nothing left in VOICES_DIR', async () => {
  const dir = freshDir();
  const controller = new AbortController();
  let downOnce = false;
  const result = installVoice(voice('en_US-lessac-medium'), {
    voicesDir: dir,
    retries: 2,
    backoffMs: 10,
    signal: controller.signal,
    onProgress: (p) => {
      if (!downOnce && p.received > 100_000) {
        downOnce = true;
        catalog.setDown(true);
      }
    },
  });
  try {
    await assert.rejects(result, (err: unknown) => {
      assert.ok(err instanceof SourceError);
      assert.match(err.message, /^en_US-lessac-medium\.onnx: .*HTTP 503.* \(\d+ of \d+ bytes downloaded\)$/);
      return true;
    });
  } finally {
    catalog.setDown(false);
  }
  assert.deepEqual(readdirSync(dir), [], 'no file, no staging folder');
});

test('an interrupted install keeps its bytes, and the next run resumes them with Range', async () => {
  const dir = freshDir();
  const controller = new AbortController();
  const path = catalog.piperPath('en_US-lessac-medium', '.onnx');
  const before = catalog.requests.length;
  await assert.rejects(
    installVoice(voice('en_US-lessac-medium'), {
      voicesDir: dir,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.received > 150_000) controller.abort(new Error('stopped'));
      },
    }),
  );
  const part = readdirSync(join(dir, STAGING_DIR)).find((f) => f.endsWith('.onnx.part'));
  assert.ok(part, 'the partial download is kept for the next run');
  assert.ok(!existsSync(join(dir, 'en_US-lessac-medium.onnx')), 'nothing unverified is in VOICES_DIR');

  const result = await installVoice(voice('en_US-lessac-medium'), { voicesDir: dir });
  assert.equal(result.downloaded, true);
  const gets = catalog.requests.slice(before).filter((r) => r.path === path);
  assert.equal(gets.length, 2);
  assert.match(gets[1].range ?? '', /^bytes=\d+-$/);
  assert.equal(gets[0].bytes + gets[1].bytes >= (catalog.files.get(path) as Buffer).length, true);
  assert.ok(Number((gets[1].range ?? '').slice(6, -1)) > 150_000, 'the resumed request starts where the first stopped');
  assert.deepEqual(readdirSync(dir).sort(), ['en_US-lessac-medium.onnx', 'en_US-lessac-medium.onnx.json']);
});

test('two installs of one voice into one folder at once: one downloads, the other waits and finds it installed', async () => {
  const dir = freshDir();
  const path = catalog.piperPath('en_US-amy-low', '.onnx');
  const before = catalog.requests.length;
  const phases: string[] = [];
  const [a, b] = await Promise.all([
    installVoice(voice('en_US-amy-low'), { voicesDir: dir }),
    installVoice(voice('en_US-amy-low'), { voicesDir: dir, onProgress: (p) => phases.push(p.phase) }),
  ]);
  assert.deepEqual([a.downloaded, b.downloaded].sort(), [false, true]);
  const gets = catalog.requests.slice(before).filter((r) => r.path === path);
  assert.equal(gets.length, 1, 'the model was fetched once');
  assert.deepEqual(readdirSync(dir).sort(), ['en_US-amy-low.onnx', 'en_US-amy-low.onnx.json']);
});

test('the catalogue refuses entries that would fetch from elsewhere or write elsewhere, and reads Piper’s real fields', () => {
  const base = new URL('https://mirror.example/piper/voices.json');
  const entry = (path: string) => ({
    key: 'en_US-x-low',
    name: 'x',
    language: { code: 'en_US', name_english: 'English', country_english: 'United States' },
    quality: 'low',
    num_speakers: 1,
    files: {
      [`${path}/en_US-x-low.onnx`]: { size_bytes: 10, md5_digest: 'a'.repeat(32) },
      [`${path}/en_US-x-low.onnx.json`]: { size_bytes: 5, md5_digest: 'b'.repeat(32) },
    },
  });
  const good = parsePiperCatalog({ 'en_US-x-low': entry('en/en_US/x/low') }, base);
  assert.equal(good.length, 1);
  assert.equal(good[0].files[1].url, 'https://mirror.example/piper/en/en_US/x/low/en_US-x-low.onnx');
  assert.equal(good[0].languageName, 'English (United States)');
  for (const bad of ['https://evil.example/x', '../../etc', '/abs/path', 'en/../../x']) {
    assert.deepEqual(parsePiperCatalog({ 'en_US-x-low': entry(bad) }, base), [], bad);
  }
  assert.deepEqual(
    parsePiperCatalog({ 'en_US-x-low': { ...entry('en'), files: { 'en/en_US-x-low.onnx': { size_bytes: 10 } } } }, base),
    [],
    'no MD5: not offered',
  );
  // The Kokoro release publishes no checksums: each file is pinned by size and SHA-256.
  const kokoro = kokoroCatalog(new URL('https://github.com/thewh1teagle/kokoro-onnx/releases/download/model-files-v1.0/'));
  assert.deepEqual(
    kokoro.map((k) => [k.name, k.files.map((f) => [f.name, f.size, f.sha256?.length])]),
    [
      [
        'kokoro-v1.0',
        [
          ['voices-v1.0.bin', 28_214_398, 64],
          ['kokoro-v1.0.onnx', 325_532_387, 64],
        ],
      ],
      [
        'kokoro-v1.0-fp16',
        [
          ['voices-v1.0.bin', 28_214_398, 64],
          ['kokoro-v1.0.fp16.onnx', 177_464_787, 64],
        ],
      ],
      [
        'kokoro-v1.0-int8',
        [
          ['voices-v1.0.bin', 28_214_398, 64],
          ['kokoro-v1.0.int8.onnx', 92_361_271, 64],
        ],
      ],
    ],
  );
});

test('progress: a bar redrawn in place on a terminal, a few plain lines elsewhere', () => {
  const p = (received: number) => ({
    voice: 'v',
    phase: 'downloading' as const,
    file: 'v.onnx',
    received,
    total: 1_000_000,
    bytesPerSecond: 250_000,
    secondsLeft: (1_000_000 - received) / 250_000,
  });
  let tty = '';
  const bar = progressPrinter({ write: (s) => (tty += s), isTTY: true, columns: 100 });
  for (let r = 0; r <= 1_000_000; r += 100_000) bar.update(p(r));
  bar.done();
  assert.ok(tty.includes('\r\u001b[2Kv [###############...............] 500 kB of 1.0 MB (50%), 250 kB/s, 2 s left'), JSON.stringify(tty));
  assert.equal(tty.split('\n').length, 2, 'one line, redrawn');
  let plain = '';
  let clock = 0;
  const lines = progressPrinter({ write: (s) => (plain += s) }, () => clock);
  for (let r = 0; r <= 1_000_000; r += 10_000) {
    clock += 10;
    lines.update(p(r));
  }
  assert.ok(!plain.includes('\r') && !plain.includes('\u001b'), 'no terminal control characters');
  const count = plain.trim().split('\n').length;
  assert.ok(count >= 3 && count <= 6, `a line per quarter, not per chunk: ${count}\n${plain}`);
});
