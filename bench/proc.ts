// What the kernel says about the server process: CPU time (all threads, so the synthesis workers count)
// and resident memory. Linux only.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

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

function ticksOf(statLine: string): number {
  // The command name may hold spaces and parentheses; the fields after its last ')' are fixed.
  const fields = statLine.slice(statLine.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name (0-based 11, 12).
  return Number(fields[11]) + Number(fields[12]);
}

/** User + system CPU seconds the process has used so far. */
export function cpuSeconds(pid: number): number {
  return ticksOf(readFileSync(`/proc/${pid}/stat`, 'utf8')) / clockTicks();
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

/** RSS of the process and all its descendants (engines run as child processes count too), in MiB. */
export function treeRssMiB(pid: number): { rssMiB: number; processes: number } {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 4 (ppid) is the second after the command name's closing parenthesis.
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  const inTree = (p: number): boolean => {
    for (let at = p, hops = 0; at > 1 && hops < 64; at = parent.get(at) ?? 0, hops++) if (at === pid) return true;
    return false;
  };
  let rssMiB = 0;
  let processes = 0;
  for (const p of parent.keys()) {
    if (!inTree(p)) continue;
    try {
      const rss = memory(p).rssMiB;
      if (Number.isFinite(rss)) {
        rssMiB += rss;
        processes += 1;
      }
    } catch {
      // Ended meanwhile.
    }
  }
  return { rssMiB, processes };
}

/** CPU seconds of each thread of the process, by thread id (a thread that has ended is absent). */
function threadCpuSeconds(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(Number(tid), ticksOf(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')) / clockTicks());
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

export interface CpuUse {
  /** The whole process, in percent of one core (200 = two busy cores). */
  percent: number;
  /** The main thread (the event loop). */
  mainPercent: number;
  /** The other threads, busiest first (the synthesis workers lead when they are busy). */
  threadPercents: number[];
  /** The load driver: this process and the `driverPids` (the probe). */
  driverPercent: number;
  /** Every other process on the machine: what the server and the driver could not use. */
  othersPercent: number;
  /** What the hypervisor gave other guests of a virtual machine meanwhile (steal), in % of one core. */
  stealPercent: number;
}

/** CPU use of process `pid` from this call until stop(), beside the driver's and the rest of the machine's. */
export function cpuMeter(pid: number, driverPids: number[] = []): { stop(): CpuUse } {
  const driverSeconds = () => {
    const own = process.cpuUsage();
    return (own.user + own.system) / 1e6 + driverPids.reduce((sum, p) => sum + cpuSeconds(p), 0);
  };
  const cpu0 = cpuSeconds(pid);
  const threads0 = threadCpuSeconds(pid);
  const driver0 = driverSeconds();
  const machine0 = machineBusySeconds();
  const steal0 = machineStealSeconds();
  const t0 = performance.now();
  return {
    stop: () => {
      const seconds = (performance.now() - t0) / 1000;
      const pct = (cpu: number) => (cpu / seconds) * 100;
      const threads = [...threadCpuSeconds(pid)].map(([tid, cpu]) => ({ tid, percent: pct(cpu - (threads0.get(tid) ?? 0)) }));
      const server = cpuSeconds(pid) - cpu0;
      const driver = driverSeconds() - driver0;
      return {
        percent: pct(server),
        mainPercent: threads.find((t) => t.tid === pid)?.percent ?? Number.NaN,
        threadPercents: threads
          .filter((t) => t.tid !== pid)
          .map((t) => t.percent)
          .sort((a, b) => b - a),
        driverPercent: pct(driver),
        othersPercent: Math.max(0, pct(machineBusySeconds() - machine0 - server - driver)),
        stealPercent: pct(machineStealSeconds() - steal0),
      };
    },
  };
}

/** The machine's CPU time since boot, all cores, in seconds: /proc/stat's "cpu" line. */
function machineCpu(): { user: number; nice: number; system: number; irq: number; softirq: number; steal: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  // cpu user nice system idle iowait irq softirq steal ...
  const [user, nice, system, , , irq, softirq, steal = 0] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map((t) => Number(t) / clockTicks());
  return { user, nice, system, irq, softirq, steal };
}

/** CPU seconds all cores of the machine have spent busy since boot (any process). */
export function machineBusySeconds(): number {
  const { user, nice, system, irq, softirq } = machineCpu();
  return user + nice + system + irq + softirq;
}

/**
 * CPU seconds the hypervisor has run other guests on this virtual machine's cores since boot (steal): time
 * the bench and the service wanted a core and did not get it. Numbers taken while it is high are not comparable.
 */
export function machineStealSeconds(): number {
  return machineCpu().steal;
}

/** CPU seconds of this process plus its children that have ended (the service, the probe, bench/engines.ts). */
export function ownCpuSecondsWithChildren(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime, stime, cutime, cstime: fields 14-17 of the whole line.
  return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / clockTicks();
}
