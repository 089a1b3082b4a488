// Sections 5 and 6: requests per second on /v1/speak at fixed concurrency (closed loop: each of C
// clients sends its next request when the last one ends), the server's CPU over each window, and, at
// the same time, the latency of a cheap endpoint probed every 10 ms from another process.
import { speak } from '../http-client.ts';
import type { Probe } from '../probe.ts';
import { cpuMeter } from '../proc.ts';
import type { Section } from '../report.ts';
import { fixed, ms, percentile } from '../stats.ts';
import { SHORT_SENTENCE } from '../texts.ts';

export const PROBE_PATH = '/healthz';

export interface Level {
  concurrency: number;
  rps: number;
  cpuPercent: number;
  probeP99: number;
}

export interface Throughput {
  throughput: Section;
  eventLoop: Section;
  levels: Level[];
}

export interface ThroughputOptions {
  voice: string;
  levels: number[];
  windowMs: number;
  idleMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function throughput(base: string, key: string, pid: number, probe: Probe, options: ThroughputOptions): Promise<Throughput> {
  const probeUrl = `${base}${PROBE_PATH}`;
  const loopRows: string[][] = [];
  const probeRow = (label: string, p: { latenciesMs: number[]; errors: number }): string[] => [
    label,
    String(p.latenciesMs.length),
    ms(percentile(p.latenciesMs, 50)),
    ms(percentile(p.latenciesMs, 99)),
    ms(Math.max(...p.latenciesMs)),
    String(p.errors),
  ];

  probe.start(probeUrl);
  const idleCpu = cpuMeter(pid, [probe.pid]);
  await sleep(options.idleMs);
  const idleCpuPercent = idleCpu.stop().percent;
  loopRows.push(probeRow(`idle, probe only (server CPU ${fixed(idleCpuPercent, 0)} %)`, await probe.stop()));

  const rows: string[][] = [];
  const levels: Level[] = [];
  for (const c of options.levels) {
    const latencies: number[] = [];
    let ok = 0;
    let errors = 0;
    const statuses = new Map<string, number>();
    const deadline = performance.now() + options.windowMs;
    probe.start(probeUrl);
    const cpu = cpuMeter(pid, [probe.pid]);
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: c }, async () => {
        while (performance.now() < deadline) {
          try {
            const r = await speak(base, key, { text: SHORT_SENTENCE, voice_id: options.voice, format: 'pcm' });
            if (r.status === 200 && r.bytes > 0) {
              ok += 1;
              latencies.push(r.totalMs);
            } else {
              errors += 1;
              statuses.set(String(r.status), (statuses.get(String(r.status)) ?? 0) + 1);
            }
          } catch (err) {
            errors += 1;
            const code = (err as { code?: string }).code ?? 'error';
            statuses.set(code, (statuses.get(code) ?? 0) + 1);
          }
        }
      }),
    );
    const elapsed = (performance.now() - t0) / 1000;
    const use = cpu.stop();
    const cpuPercent = use.percent;
    const p = await probe.stop();
    const rps = ok / elapsed;
    levels.push({ concurrency: c, rps, cpuPercent, probeP99: percentile(p.latenciesMs, 99) });
    rows.push([
      String(c),
      String(ok),
      fixed(rps, 1),
      ms(percentile(latencies, 50)),
      ms(percentile(latencies, 95)),
      fixed(cpuPercent, 0),
      `${fixed(use.mainPercent, 0)} / ${use.threadPercents
        .slice(0, 2)
        .map((x) => fixed(x, 0))
        .join(' + ')} / ${fixed(
        use.threadPercents.slice(2).reduce((a, b) => a + b, 0),
        0,
      )}`,
      fixed(use.driverPercent, 0),
      fixed(use.othersPercent, 0),
      errors === 0 ? '0' : `${errors} (${[...statuses].map(([k, v]) => `${k}: ${v}`).join(', ')})`,
    ]);
    loopRows.push(probeRow(`speak load, concurrency ${c}`, p));
  }
  return {
    levels,
    throughput: {
      summary: levels.map((l) => [
        `/v1/speak short pcm at concurrency ${l.concurrency}`,
        `${fixed(l.rps, 1)} req/s, server CPU ${fixed(l.cpuPercent, 0)} %, probe p99 ${ms(l.probeP99)} ms`,
      ]),
      title: '5. POST /v1/speak throughput',
      notes: [
        `"${SHORT_SENTENCE}" as pcm with ${options.voice}; closed loop of C clients for ${fixed(options.windowMs / 1000, 0)} s per level.`,
        "Server CPU % = the server process's user + system time (all threads) over the window, from /proc/<pid>/stat; 200 % = both cores busy.",
        'Split by thread (/proc/<pid>/task): the main thread (event loop), the two busiest others (the synthesis workers when they work),',
        'and the rest together (V8 and libuv helper threads: garbage collection, compilation, file system). "driver" is the bench',
        'process and its probe; "other processes" is everything else on the machine (/proc/stat), which the server could not use.',
      ],
      headers: [
        'concurrency',
        'requests',
        'req/s',
        'p50 ms',
        'p95 ms',
        'server CPU %',
        'main / top 2 / other threads %',
        'driver %',
        'other processes %',
        'errors',
      ],
      rows,
    },
    eventLoop: {
      title: `6. Event-loop delay under load (probe: GET ${PROBE_PATH} latency)`,
      notes: [
        `The server does not expose its event-loop delay, so it is measured from outside: a separate process sends GET ${PROBE_PATH}`,
        'every 10 ms (one at a time) during each window of section 5; the p99 of that latency bounds the loop delay plus a loopback round trip.',
        'With both cores busy it also holds the time the main thread waited for a core (the run queue), not only time the loop was blocked.',
      ],
      headers: ['window', 'probes', 'p50 ms', 'p99 ms', 'max ms', 'errors'],
      rows: loopRows,
    },
  };
}
