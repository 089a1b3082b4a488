// Section 4: how many WebSocket streams at once stay faster than real time. Each step opens N
// connections, sends them the same paragraph at the same moment, and compares each stream's wall time
// (request to done) with the audio seconds it received.
import { cpuMeter } from '../proc.ts';
import type { Section } from '../report.ts';
import { fixed, ms, percentile } from '../stats.ts';
import { PARAGRAPH_RAMP } from '../texts.ts';
import { openStreams, speakOnAll, type StreamResult } from '../ws-client.ts';

export interface Capacity {
  section: Section;
  /** The largest N at which every stream had RTF < 1 (0 if even one stream did not). */
  sustained: number;
  /** Whether the ramp stopped at its cap (or time budget) before any step failed. */
  capped: boolean;
}

export interface CapacityOptions {
  voice: string;
  maxStreams: number;
  /** No step that would end after the ramp has taken this long. */
  budgetMs: number;
}

async function step(base: string, key: string, n: number, voice: string): Promise<StreamResult[]> {
  return speakOnAll(await openStreams(base, key, n), () => PARAGRAPH_RAMP, voice);
}

export async function streamCapacity(base: string, key: string, pid: number, options: CapacityOptions): Promise<Capacity> {
  const rows: string[][] = [];
  const started = performance.now();
  let sustained = 0;
  let capped = true;
  let lastWall = 0;
  for (let n = 1; n <= options.maxStreams; n *= 2) {
    // Twice the streams take about twice as long: skip a step that would overrun the time budget.
    if (performance.now() - started + 2.2 * lastWall > options.budgetMs) break;
    const cpu = cpuMeter(pid);
    const t0 = performance.now();
    const results = await step(base, key, n, options.voice);
    const wall = performance.now() - t0;
    lastWall = wall;
    const use = cpu.stop();
    const ok = results.filter((r) => !r.error && r.audioSeconds > 0);
    const rtf = ok.map((r) => r.totalMs / 1000 / r.audioSeconds);
    const firsts = ok.map((r) => r.firstChunkMs);
    const allFaster = ok.length === n && rtf.every((x) => x < 1);
    rows.push([
      String(n),
      fixed(
        percentile(
          ok.map((r) => r.audioSeconds),
          50,
        ),
        1,
      ),
      fixed(percentile(rtf, 50), 2),
      fixed(Math.max(...rtf), 2),
      ms(percentile(firsts, 50)),
      ms(Math.max(...firsts)),
      fixed(wall / 1000, 1),
      fixed(use.percent, 0),
      fixed(use.driverPercent, 0),
      fixed(use.othersPercent, 0),
      String(n - ok.length),
      allFaster ? 'yes' : 'no',
    ]);
    if (!allFaster) {
      capped = false;
      break;
    }
    sustained = n;
  }
  return {
    sustained,
    capped,
    section: {
      summary: [['concurrent streams all faster than real time', `${sustained}${capped ? ' (ramp limit reached)' : ''}`]],
      title: '4. Concurrent WebSocket streams faster than real time',
      notes: [
        `Voice ${options.voice}; each of N connections streams the same two-sentence paragraph, all sent at once.`,
        'Stream RTF = wall seconds from "synthesize" to "done" / audio seconds received; a step passes when every stream has RTF < 1.',
        'A first chunk that grows with N means streams waited for a synthesis slot in the worker pool before starting.',
        'CPU: the server process, the load driver (this bench process), and every other process on the machine (/proc/stat).',
        `**Sustained: ${sustained} concurrent streams**${capped ? ' (the ramp stopped at its limit before any step failed)' : ''}.`,
      ],
      headers: [
        'N',
        'audio s',
        'RTF p50',
        'RTF max',
        '1st chunk p50 ms',
        '1st chunk max ms',
        'wall s',
        'server CPU %',
        'driver %',
        'other processes %',
        'errors',
        'all < 1',
      ],
      rows,
    },
  };
}
