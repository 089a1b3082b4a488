// Section 19: input streaming under CPU load (issue 44, C1). A sentence sent word by word over ~3.3 s on one
// WebSocket context, as an agent's tokens come; the time from the last word to the first audio, on a quiet
// machine and with six busy loops beside the service (the outside re-test saw 0.4-11.8 s there).
import { spawn, type ChildProcess } from 'node:child_process';
import WebSocket from 'ws';
import type { Section } from '../report.ts';
import { ms, percentile } from '../stats.ts';
import { ONE_SENTENCE } from '../texts.ts';

const BUSY_LOOPS = 6;
const SEND_OVER_MS = 3_300;

interface Run {
  /** From sending the last word to the first audio message. */
  firstAudioMs: number;
  error?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One context: the sentence's words (with their spaces) spread over SEND_OVER_MS, the last one closing it. */
async function oneRun(base: string, key: string, voice: string, contextId: string): Promise<Run> {
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/v1/ws/stream?token=${encodeURIComponent(key)}`, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const words = ONE_SENTENCE.split(' ').map((w, i) => (i === 0 ? w : ` ${w}`));
  let lastSent = Number.NaN;
  const answer = new Promise<Run>((resolve) => {
    ws.on('message', (data) => {
      const text = data.toString();
      if (text.startsWith('{"type":"audio"')) resolve({ firstAudioMs: performance.now() - lastSent });
      else if (text.includes('"type":"error"')) resolve({ firstAudioMs: Number.NaN, error: text.slice(0, 200) });
    });
    ws.once('close', (code) => resolve({ firstAudioMs: Number.NaN, error: `closed ${code}` }));
  });
  const gap = SEND_OVER_MS / (words.length - 1);
  const started = performance.now();
  for (let i = 0; i < words.length; i++) {
    // Paced from the start, so a late timer does not stretch the whole sending.
    const due = started + i * gap - performance.now();
    if (due > 0) await sleep(due);
    const last = i === words.length - 1;
    if (last) lastSent = performance.now();
    ws.send(
      JSON.stringify({
        type: 'synthesize',
        context_id: contextId,
        text: words[i],
        continue: !last,
        ...(i === 0 ? { voice_id: voice } : {}),
      }),
    );
  }
  const run = await Promise.race([answer, sleep(60_000).then(() => ({ firstAudioMs: Number.NaN, error: 'no audio within 60 s' }))]);
  ws.terminate();
  return run;
}

async function runs(base: string, key: string, voice: string, count: number, label: string): Promise<Run[]> {
  const out: Run[] = [];
  for (let i = 0; i < count; i++) out.push(await oneRun(base, key, voice, `${label}-${i}`));
  return out;
}

function row(label: string, rs: Run[]): string[] {
  const ok = rs.filter((r) => !r.error).map((r) => r.firstAudioMs);
  return [
    label,
    String(rs.length),
    ok.length ? ms(percentile(ok, 50)) : '-',
    ok.length ? ms(Math.max(...ok)) : '-',
    ok.map((v) => ms(v)).join(', '),
    String(rs.length - ok.length),
  ];
}

export async function inputStreamingUnderLoad(base: string, key: string, voice: string, count: number): Promise<Section> {
  // One warm-up, not counted: the voice's first sentence pays for loading it.
  await oneRun(base, key, voice, 'warm');
  const quiet = await runs(base, key, voice, count, 'quiet');
  const loops: ChildProcess[] = [];
  for (let i = 0; i < BUSY_LOOPS; i++) loops.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  let loaded: Run[];
  try {
    loaded = await runs(base, key, voice, count, 'loaded');
  } finally {
    for (const loop of loops) loop.kill('SIGKILL');
  }
  const quietRow = row('quiet', quiet);
  const loadedRow = row(`${BUSY_LOOPS} busy loops beside the service`, loaded);
  return {
    title: '19. Input streaming under CPU load: last word to first audio',
    notes: [
      `"${ONE_SENTENCE}" sent word by word on one context over ${SEND_OVER_MS / 1000} s (the last word with continue: false), ${voice}; ${count} runs per row after one warm-up.`,
      `Time from sending the last word to the first audio message. "Loaded": ${BUSY_LOOPS} processes spinning at normal priority beside the service and this client.`,
    ],
    headers: ['condition', 'runs', 'p50 ms', 'max ms', 'each run ms', 'errors'],
    rows: [quietRow, loadedRow],
    summary: [['input streaming, last word to first audio p50, quiet / six busy loops', `${quietRow[2]} / ${loadedRow[2]} ms`]],
  };
}
