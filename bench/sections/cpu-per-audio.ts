// Section 18: CPU per second of audio, the service against Debian's flite program for the same voice. The
// service's cost is its whole process (HTTP, scheduling, the pipeline, the worker threads) while it answers
// sequential /v1/speak requests; the program's is what its processes used, start-up included, from spawn to
// exit. Runs of the two alternate, every text is new (nothing cached).
import { execFile } from 'node:child_process';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { speak, PCM_BYTES_PER_SECOND } from '../http-client.ts';
import { cpuSeconds, ownCpuSecondsWithChildren } from '../proc.ts';
import type { Section } from '../report.ts';
import { FLITE_PROGRAM } from '../spawn-reference.ts';
import { fixed, median, range } from '../stats.ts';
import { ONE_SENTENCE, PARAGRAPH_2000 } from '../texts.ts';

const run = promisify(execFile);
const WAV_HEADER_BYTES = 44;
const TARGET_RATIO = 1.1;
/** Audio the service speaks before the measured runs. */
const WARM_UP_AUDIO_SECONDS = 300;
// The kernel counts CPU time in ticks of 10 ms (/proc's utime and stime, a child's too), and one sentence
// costs ~75 ms: measured one at a time, a run was ±13 % from the ticks alone, and ten runs' medians of the
// same code came out 0.93 and 1.12 times native. A run is therefore a batch of requests (or of programs),
// each still one sentence, summed: ~0.75 s of CPU per run, ±1.3 %.
const SENTENCES_PER_RUN = 10;

interface Cost {
  cpuSeconds: number;
  audioSeconds: number;
}

const msPerAudioSecond = (c: Cost): number => (c.cpuSeconds / c.audioSeconds) * 1000;

/** `count` costs, one after another, summed into one. */
async function batch(count: number, one: () => Promise<Cost>): Promise<Cost> {
  const sum: Cost = { cpuSeconds: 0, audioSeconds: 0 };
  for (let i = 0; i < count; i++) {
    const c = await one();
    sum.cpuSeconds += c.cpuSeconds;
    sum.audioSeconds += c.audioSeconds;
  }
  return sum;
}

/** The CPU the service's process used for one request, and the audio it answered with. */
async function serviceCost(service: { base: string; key: string; pid: number }, voice: string, text: string): Promise<Cost> {
  const before = cpuSeconds(service.pid);
  const r = await speak(service.base, service.key, { text, voice_id: voice, format: 'pcm' });
  if (r.status !== 200) throw new Error(`/v1/speak answered ${r.status}`);
  return { cpuSeconds: cpuSeconds(service.pid) - before, audioSeconds: r.bytes / PCM_BYTES_PER_SECOND };
}

/** The CPU one run of the flite program used (this process's own use meanwhile left out), and its audio. */
async function programCost(dir: string, voice: string, text: string, n: number): Promise<Cost> {
  const file = join(dir, `${n}.wav`);
  const own = process.cpuUsage();
  const before = ownCpuSecondsWithChildren();
  await run(FLITE_PROGRAM, ['-voice', voice, '-t', text, '-o', file]);
  const ownUsed = process.cpuUsage(own);
  const cpu = ownCpuSecondsWithChildren() - before - (ownUsed.user + ownUsed.system) / 1e6;
  // flite writes 16-bit mono WAV.
  const { size } = await stat(file);
  const rate = await wavRate(file);
  await rm(file);
  return { cpuSeconds: Math.max(0, cpu), audioSeconds: (size - WAV_HEADER_BYTES) / (rate * 2) };
}

/** The sample rate in a WAV header (bytes 24-27). */
async function wavRate(file: string): Promise<number> {
  const handle = await open(file, 'r');
  try {
    const header = Buffer.alloc(WAV_HEADER_BYTES);
    await handle.read(header, 0, WAV_HEADER_BYTES, 0);
    return header.readUInt32LE(24);
  } finally {
    await handle.close();
  }
}

export async function cpuPerAudioSecond(
  service: { base: string; key: string; pid: number },
  voice: string,
  referenceVoice: string,
  runs: number,
): Promise<Section> {
  const dir = await mkdtemp(join(tmpdir(), 'voxsmith-cpu-'));
  const rows: string[][] = [];
  const summary: string[][] = [];
  let n = 0;
  try {
    for (const [name, text, perRun] of [
      ['1 sentence', ONE_SENTENCE, SENTENCES_PER_RUN],
      ['2 000 chars', PARAGRAPH_2000, 1],
    ] as const) {
      const fresh = (): string => `${n++}. ${text}`;
      // Not counted: warm-up. A fresh service's threads spend 2-3x the steady CPU on their first few dozen
      // sentences (V8 compiling the pipeline in each thread); the program's files get into the page cache.
      for (let seconds = 0; seconds < WARM_UP_AUDIO_SECONDS;) seconds += (await serviceCost(service, voice, fresh())).audioSeconds;
      await programCost(dir, referenceVoice, fresh(), n);
      const svc: number[] = [];
      const prog: number[] = [];
      for (let i = 0; i < runs; i++) {
        svc.push(msPerAudioSecond(await batch(perRun, () => serviceCost(service, voice, fresh()))));
        prog.push(msPerAudioSecond(await batch(perRun, () => programCost(dir, referenceVoice, fresh(), n))));
      }
      const ratio = median(svc) / median(prog);
      rows.push([
        name,
        fixed(median(svc), 1),
        range(svc, 1),
        fixed(median(prog), 1),
        range(prog, 1),
        fixed(ratio, 2),
        `${runs} + ${runs} of ${perRun}`,
      ]);
      summary.push([
        `CPU per audio second, ${name}: service / native flite (median ms; target ≤ ${TARGET_RATIO}x)`,
        `${fixed(median(svc), 1)} / ${fixed(median(prog), 1)} ms = ${fixed(ratio, 2)}x`,
      ]);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return {
    title: '18. CPU per second of audio: the service against the native program',
    notes: [
      `Voice ${voice} through POST /v1/speak (pcm), one request at a time: CPU of the whole service process (/proc) per second of audio`,
      `it answered. Native: ${FLITE_PROGRAM} -voice ${referenceVoice} -t TEXT -o FILE, its CPU from spawn to exit (start-up included).`,
      `Runs alternate; every text is new; medians of the per-run figures. A run of one sentence is ${SENTENCES_PER_RUN} requests (or programs) one`,
      "after another, each one sentence, summed: the kernel counts CPU in 10 ms ticks, and one sentence's ~75 ms would be ±13 % from them.",
    ],
    headers: ['text', 'service ms CPU / audio s', 'runs min–max', 'native ms CPU / audio s', 'runs min–max', 'ratio', 'runs of requests'],
    rows,
    summary,
  };
}
