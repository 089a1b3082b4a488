// `npm ci` from a clean clone prints no npm warning: no project config npm does not know, no dependency whose
// `engines` refuses the Node we support, and every dependency install script reviewed in `allowScripts`. A dry
// run resolves the same tree and prints the same warnings as the real install (measured: the three kinds above
// all show in it) in seconds, without building better-sqlite3.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;

test('npm ci on a clean copy of the project files prints no npm warning', () => {
  const dir = mkdtempSync(join(tmpdir(), 'voxsmith-install-'));
  try {
    // What a clone holds that npm reads: the manifest, the lock and any project .npmrc. The project's own
    // lifecycle scripts (prepare builds dist/) need the sources and warn about nothing: left out.
    for (const name of ['package-lock.json', '.npmrc']) {
      if (existsSync(join(root, name))) copyFileSync(join(root, name), join(dir, name));
    }
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
    delete manifest.scripts;
    writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
    const run = spawnSync('npm', ['ci', '--dry-run', '--no-audit', '--no-fund'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, npm_config_loglevel: 'warn' },
    });
    assert.equal(run.status, 0, run.stderr);
    const warnings = `${run.stdout}\n${run.stderr}`.split('\n').filter((line) => /^npm (warn|WARN)/.test(line));
    assert.deepEqual(warnings, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('onnxruntime-node keeps its GPU download step held back; the addons that must build may run theirs', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    allowScripts?: Record<string, boolean>;
    engines?: Record<string, string>;
  };
  assert.equal(pkg.allowScripts?.['onnxruntime-node'], false, 'its CPU binary ships in the package; the script only fetches CUDA files');
  assert.equal(pkg.allowScripts?.['better-sqlite3'], true);
  assert.match(pkg.engines?.npm ?? '', /11\.16/, 'allowScripts needs npm 11.16');
  // The onnxruntime CPU binary is there without the script having run.
  assert.ok(
    existsSync(join(root, 'node_modules/onnxruntime-node/bin/napi-v6/linux/x64/onnxruntime_binding.node')) ||
      process.platform !== 'linux' ||
      process.arch !== 'x64',
  );
});
