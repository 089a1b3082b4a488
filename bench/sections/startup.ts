// Section 13: how fast the service is ready and how much memory it holds when idle, with 2 synthesis
// workers (the target configuration) and with the default (a thread per core and one more), measured
// on services of their own so nothing else has run.
import { treeRssMiB } from '../proc.ts';
import type { Section } from '../report.ts';
import { startService } from '../service.ts';
import { fixed, median } from '../stats.ts';
import { defaultWorkers } from '../../src/synth/pool.ts';

/** WORKERS values measured: the 2, and the default (unset). */
const CONFIGS: Array<{ label: string; env: Record<string, string> }> = [
  { label: '2 workers', env: { WORKERS: '2' } },
  { label: `default workers (${defaultWorkers()})`, env: {} },
];
// Idle means after start-up settled: an engine may finish warming just after /readyz.
const SETTLE_MS = 3_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startup(starts: number): Promise<Section> {
  const rows: string[][] = [];
  const summary: string[][] = [];
  for (const config of CONFIGS) {
    const ready: number[] = [];
    const idle: number[] = [];
    for (let i = 0; i < starts; i++) {
      const service = await startService({ env: config.env });
      try {
        const atReady = treeRssMiB(service.pid);
        await sleep(SETTLE_MS);
        const settled = treeRssMiB(service.pid);
        ready.push(service.startSeconds);
        idle.push(settled.rssMiB);
        rows.push([
          config.label,
          String(i + 1),
          fixed(service.startSeconds, 2),
          fixed(atReady.rssMiB, 0),
          fixed(settled.rssMiB, 0),
          String(settled.processes),
        ]);
      } finally {
        await service.stop();
      }
    }
    summary.push(
      [`start to ready, ${config.label} (median of ${starts}; target ≤ 2 s)`, `${fixed(median(ready), 2)} s`],
      [`idle RSS, ${config.label} (median; target ≤ 300 MiB)`, `${fixed(median(idle), 0)} MiB`],
    );
  }
  return {
    title: '13. Start to ready and idle memory',
    notes: [
      `${starts} fresh starts of the service (npm start) for each WORKERS setting: seconds from spawn until GET /readyz answers 200, and the resident`,
      `memory of the service's process tree (the main process with its worker threads, plus any child processes; VmRSS`,
      `from /proc) at ready and ${SETTLE_MS / 1000} s later. Targets: ready ≤ 2 s, idle ≤ 300 MiB; after the bench ≤ 400 MiB (section 7).`,
    ],
    headers: ['WORKERS', 'start', 'ready s', 'RSS at ready MiB', 'RSS idle MiB', 'processes'],
    rows,
    summary,
  };
}
