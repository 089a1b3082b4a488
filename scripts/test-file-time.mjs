// Loaded with --import into every process of a test run (node's runner passes its flags on to each file's own
// process). In a test file's process, it appends one JSON line to VOXSMITH_TEST_TIMES when the process exits: the
// file, its wall time and its CPU time (all its threads, with the child processes it waited for), so
// run-tests.mjs can print which files cost the run most. Elsewhere (the runner itself, or VOXSMITH_TEST_TIMES
// unset) it does nothing.
import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

const out = process.env.VOXSMITH_TEST_TIMES;
const file = process.argv[1];

/** CPU seconds of this process and of its reaped children, from /proc (clock ticks of 1/100 s); null elsewhere. */
function cpuSeconds() {
  try {
    // Fields after the command name, which is in parentheses and may hold spaces.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime are fields 14-17 of the line: 12-15 after the name.
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    return ticks / 100;
  } catch {
    const own = process.cpuUsage();
    return (own.user + own.system) / 1e6;
  }
}

if (out && file && /\.test\.[cm]?[jt]s$/.test(file)) {
  process.once('exit', (code) => {
    const seconds = performance.now() / 1000;
    const line = { file: relative(process.cwd(), file), seconds, cpuSeconds: cpuSeconds(), code };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
}
