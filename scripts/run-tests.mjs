// Runs every test file under test/ with node's own test runner (TypeScript through tsx).
// A file list is passed explicitly because Node 20's runner does not glob .ts files itself.
//
// The API suites (folders in STORE_SUITES) then run a second time against PostgreSQL and Redis
// (127.0.0.1:5432 database `test`, 127.0.0.1:6379; see test/helpers/stores.ts), each server in its own
// schema and key prefix. VOXSMITH_TEST_STORES=sqlite skips that pass. With file arguments, only those files
// run, once, on whatever VOXSMITH_TEST_STORE / VOXSMITH_TEST_REDIS say (SQLite and memory by default).
// After each pass, every file's wall and CPU time is printed, slowest first (scripts/test-file-time.mjs).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const TIMER = fileURLToPath(new URL('./test-file-time.mjs', import.meta.url));

// Every suite that drives the HTTP API lives here, so a new one gets the second pass without a list to edit.
const STORE_SUITES = ['test/http'];

function collect(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'browser' ? [] : collect(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Each file's wall and CPU seconds, slowest first; a file that left no record (killed) is named too. */
function printTimes(files, timesFile, label) {
  let lines = [];
  try {
    lines = readFileSync(timesFile, 'utf8').split('\n').filter(Boolean);
  } catch {
    // No file ran far enough to write one.
  }
  const times = new Map(lines.map((l) => JSON.parse(l)).map((t) => [t.file, t]));
  const rows = [...times.values()].sort((a, b) => b.seconds - a.seconds);
  const total = (key) => rows.reduce((sum, t) => sum + t[key], 0);
  const out = [`\n# Time per file${label}, slowest first (wall s, CPU s of the file's process and the processes it ran)`];
  for (const t of rows) out.push(`# ${t.seconds.toFixed(1).padStart(7)} ${t.cpuSeconds.toFixed(1).padStart(7)}  ${t.file}`);
  const missing = files.map((f) => relative(process.cwd(), resolve(f))).filter((f) => !times.has(f));
  for (const f of missing) out.push(`#       ?       ?  ${f} (no time recorded: the process did not exit by itself)`);
  out.push(`# ${total('seconds').toFixed(0).padStart(7)} ${total('cpuSeconds').toFixed(0).padStart(7)}  in all (${rows.length} files)\n`);
  process.stdout.write(`${out.join('\n')}\n`);
}

function run(files, env, label = '') {
  const dir = mkdtempSync(join(tmpdir(), 'voxsmith-test-times-'));
  const timesFile = join(dir, 'times.jsonl');
  const args = ['--import', 'tsx', '--import', TIMER, '--test', '--test-concurrency=2', '--test-reporter=spec', ...files];
  const result = spawnSync(process.execPath, args, {
    stdio: 'inherit',
    env: { ...process.env, ...env, VOXSMITH_TEST_TIMES: timesFile },
  });
  printTimes(files, timesFile, label);
  rmSync(dir, { recursive: true, force: true });
  return result.status ?? 1;
}

const only = process.argv.slice(2);
if (only.length > 0) process.exit(run(only, {}));

const files = collect('test').sort();
let status = run(files, {}, ' (SQLite)');
if (process.env.VOXSMITH_TEST_STORES !== 'sqlite') {
  const storeFiles = files.filter((f) => STORE_SUITES.some((dir) => f.startsWith(join(dir) + sep)));
  process.stdout.write(`\n# API suites again on PostgreSQL + Redis (${storeFiles.length} files)\n`);
  status = run(storeFiles, { VOXSMITH_TEST_STORE: 'postgres', VOXSMITH_TEST_REDIS: '1' }, ' (PostgreSQL + Redis)') || status;
}
process.exit(status);
