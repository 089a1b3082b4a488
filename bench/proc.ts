// What the kernel says about the server process: CPU time (all threads, so the synthesis workers count)
// and resident memory. Linux only.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** User + system CPU seconds the process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name may hold spaces and parentheses; the fields after its last ')' are fixed.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name (0-based 11, 12).
  return (Number(fields[11]) + Number(fields[12])) / clockTicks();
}

export interface Memory {
  rssMiB: number;
  peakRssMiB: number;
}

export function memory(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssMiB: kib('VmRSS') / 1024, peakRssMiB: kib('VmHWM') / 1024 };
}

/** CPU use of the process from this call until stop(), in percent of one core (200 = two busy cores). */
export function cpuMeter(pid: number): { stop(): number } {
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  return {
    stop: () => ((cpuSeconds(pid) - cpu0) / ((performance.now() - t0) / 1000)) * 100,
  };
}

/** CPU seconds all cores of the machine have spent busy since boot (any process). */
export function machineBusySeconds(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  // cpu user nice system idle iowait irq softirq steal ...
  const [user, nice, system, , , irq, softirq] = line.trim().split(/\s+/).slice(1).map(Number);
  return (user + nice + system + irq + softirq) / clockTicks();
}

/** CPU seconds of this process plus its children that have ended (the service, the probe, bench/engines.ts). */
export function ownCpuSecondsWithChildren(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime, stime, cutime, cstime: fields 14-17 of the whole line.
  return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / clockTicks();
}
