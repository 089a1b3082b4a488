// Section 13: how fast the service is ready and how much memory it holds when idle, with 2 synthesis
// workers (the target configuration), measured on services of their own so nothing else has run.
import { treeRssMiB } from '../proc.ts';
import type { Section } from '../report.ts';
import { startService } from '../service.ts';
import { fixed, median } from '../stats.ts';

const WORKERS = 2;
// Idle means after start-up settled: an engine may finish warming just after /readyz.
const SETTLE_MS = 3_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startup(starts: number): Promise<Section> {
  const rows: string[][] = [];
  const ready: number[] = [];
  const idle: number[] = [];
  for (let i = 0; i < starts; i++) {
    const service = await startService({ env: { WORKERS: String(WORKERS) } });
    try {
      const atReady = treeRssMiB(service.pid);
      await sleep(SETTLE_MS);
      const settled = treeRssMiB(service.pid);
      ready.push(service.startSeconds);
      idle.push(settled.rssMiB);
      rows.push([
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
  return {
    title: `13. Start to ready and idle memory (${WORKERS} workers)`,
    notes: [
      `${starts} fresh starts of the service (npm start) with WORKERS=${WORKERS}: seconds from spawn until GET /readyz answers 200, and the resident`,
      `memory of the service's process tree (the main process with its worker threads, plus any child processes; VmRSS`,
      `from /proc) at ready and ${SETTLE_MS / 1000} s later. Targets: ready ≤ 2 s, idle ≤ 300 MiB; after the bench ≤ 400 MiB (section 7).`,
    ],
    headers: ['start', 'ready s', 'RSS at ready MiB', 'RSS idle MiB', 'processes'],
    rows,
    summary: [
      [`start to ready, ${WORKERS} workers (median of ${starts}; target ≤ 2 s)`, `${fixed(median(ready), 2)} s`],
      [`idle RSS, ${WORKERS} workers (median; target ≤ 300 MiB)`, `${fixed(median(idle), 0)} MiB`],
    ],
  };
}
