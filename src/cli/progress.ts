// Download progress for people: a bar redrawn in place on a terminal (bytes, speed, time left), plain lines at
// most every few seconds otherwise (logs, CI), so neither floods its reader.
import type { InstallProgress } from '../voices/install/installer.ts';

export function formatBytes(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} GB`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(0)} kB`;
  return `${n} B`;
}

export function formatSeconds(s: number): string {
  if (s < 60) return `${Math.ceil(s)} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${Math.ceil(s % 60)} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** "25.9 of 63.2 MB (41%), 4.1 MB/s, 9 s left" */
export function progressText(p: InstallProgress): string {
  const pct = p.total > 0 ? Math.floor((p.received / p.total) * 100) : 0;
  const speed = p.bytesPerSecond > 0 ? `, ${formatBytes(p.bytesPerSecond)}/s` : '';
  const left = p.secondsLeft !== null && p.received < p.total ? `, ${formatSeconds(p.secondsLeft)} left` : '';
  return `${formatBytes(p.received)} of ${formatBytes(p.total)} (${pct}%)${speed}${left}`;
}

export interface ProgressOutput {
  write(text: string): void;
  isTTY?: boolean;
  columns?: number;
}

const PLAIN_EVERY_MS = 3000;

/** A progress callback for one voice's install that draws on `out`; call done() when it ends. */
export function progressPrinter(out: ProgressOutput, now: () => number = Date.now): { update(p: InstallProgress): void; done(): void } {
  let lastPlain = 0;
  let lastPct = -1;
  let drawn = false;
  let waiting = false;
  return {
    update(p) {
      if (p.phase === 'waiting') {
        if (!waiting) out.write(`${p.voice}: another process is downloading ${p.file}; waiting for it\n`);
        waiting = true;
        return;
      }
      if (out.isTTY) {
        const width = Math.max(10, Math.min(30, (out.columns ?? 80) - 70));
        const filled = p.total > 0 ? Math.round((p.received / p.total) * width) : 0;
        const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
        out.write(`\r\u001b[2K${p.voice} ${bar} ${progressText(p)}`);
        drawn = true;
        return;
      }
      const pct = p.total > 0 ? Math.floor((p.received / p.total) * 100) : 0;
      const t = now();
      if (p.phase === 'installed' || t - lastPlain >= PLAIN_EVERY_MS || pct >= lastPct + 25) {
        if (p.phase !== 'installed') out.write(`${p.voice}: ${progressText(p)}\n`);
        lastPlain = t;
        lastPct = pct;
      }
    },
    done() {
      if (drawn) out.write('\n');
      drawn = false;
    },
  };
}
