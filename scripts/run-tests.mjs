// Runs every test file under test/ with node's own test runner (TypeScript through tsx).
// A file list is passed explicitly because Node 20's runner does not glob .ts files itself.
//
// The API suites (folders in STORE_SUITES) then run a second time against PostgreSQL and Redis
// (127.0.0.1:5432 database `test`, 127.0.0.1:6379; see test/helpers/stores.ts), each server in its own
// schema and key prefix. VOXSMITH_TEST_STORES=sqlite skips that pass. With file arguments, only those files
// run, once, on whatever VOXSMITH_TEST_STORE / VOXSMITH_TEST_REDIS say (SQLite and memory by default).
import { readdirSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { spawnSync } from 'node:child_process';

// Every suite that drives the HTTP API lives here, so a new one gets the second pass without a list to edit.
const STORE_SUITES = ['test/http'];

function collect(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'browser' ? [] : collect(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

function run(files, env) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files], {
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  return result.status ?? 1;
}

const only = process.argv.slice(2);
if (only.length > 0) process.exit(run(only, {}));

const files = collect('test').sort();
let status = run(files, {});
if (process.env.VOXSMITH_TEST_STORES !== 'sqlite') {
  const storeFiles = files.filter((f) => STORE_SUITES.some((dir) => f.startsWith(join(dir) + sep)));
  process.stdout.write(`\n# API suites again on PostgreSQL + Redis (${storeFiles.length} files)\n`);
  status = run(storeFiles, { VOXSMITH_TEST_STORE: 'postgres', VOXSMITH_TEST_REDIS: '1' }) || status;
}
process.exit(status);
