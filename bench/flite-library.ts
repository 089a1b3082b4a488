// The resident flite library (src/synth/engines/flite/library.ts): engine time per sentence, time to the
// first streamed chunk, CPU per audio second against Debian's native `flite` program on the same sentences,
// and the library's memory after many sentences.
// Run: node --import tsx bench/flite-library.ts [sentences for the memory run, default 2000]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from '../src/synth/engine.ts';
import { fliteWasmPath } from '../src/synth/engines/flite/compiled.ts';
import { FliteLibrary } from '../src/synth/engines/flite/library.ts';
import { loadEngine } from '../src/synth/registry.ts';
import type { VoiceSpec } from '../src/synth/voice-spec.ts';
import { ONE_SENTENCE, SENTENCE_25_WORDS, SHORT_SENTENCE, WER_SENTENCES } from './texts.ts';

const MEMORY_SENTENCES = Number(process.argv[2] ?? 2000);
const SLT: VoiceSpec = { engine: 'flite', base: 'slt' };
const RUNS = 15;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * One sentence through the engine: the whole call's time and the first streamed chunk's, on the clock and in
 * this process's CPU time (on a machine shared with other work, the clock measures the neighbours too), and
 * the audio.
 */
async function once(
  engine: Engine,
  text: string,
  voice = SLT,
): Promise<{ ms: number; firstMs: number; cpuMs: number; firstCpuMs: number; secs: number; chunks: number }> {
  const cpuMs = (since: NodeJS.CpuUsage): number => {
    const c = process.cpuUsage(since);
    return (c.user + c.system) / 1000;
  };
  const t = performance.now();
  const cpu = process.cpuUsage();
  let firstMs = 0;
  let firstCpuMs = 0;
  let samples = 0;
  let rate = 1;
  let chunks = 0;
  const stream = (c: { samples: Float32Array; sampleRate: number }): void => {
    firstMs ||= performance.now() - t;
    firstCpuMs ||= cpuMs(cpu);
    samples += c.samples.length;
    rate = c.sampleRate;
    chunks++;
  };
  for await (const _ of engine.synthesize(text, voice, { speed: 1, stream }));
  return { ms: performance.now() - t, firstMs, cpuMs: cpuMs(cpu), firstCpuMs, secs: samples / rate, chunks };
}

const engine = await loadEngine('flite');
await engine.warmUp();
for (const text of [SHORT_SENTENCE, SENTENCE_25_WORDS]) for (let i = 0; i < 3; i++) await once(engine, text);

console.log(`flite.wasm: ${statSync(fliteWasmPath()).size} bytes\n`);
console.log('median of 15 runs; wall clock (CPU time of this process)');
console.log(
  `${'sentence'.padEnd(28)} ${'audio s'.padStart(8)} ${'engine ms'.padStart(18)} ${'1st chunk ms'.padStart(18)} ${'chunks'.padStart(7)}`,
);
for (const [name, text] of [
  ['short (8 words)', SHORT_SENTENCE],
  ['one sentence (19 words)', ONE_SENTENCE],
  ['25 words', SENTENCE_25_WORDS],
] as const) {
  const runs: Awaited<ReturnType<typeof once>>[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await once(engine, text));
  const both = (wall: (r: (typeof runs)[number]) => number, cpu: (r: (typeof runs)[number]) => number): string =>
    `${median(runs.map(wall)).toFixed(1)} (${median(runs.map(cpu)).toFixed(1)})`.padStart(18);
  console.log(
    `${name.padEnd(28)} ${runs[0].secs.toFixed(2).padStart(8)} ${both(
      (r) => r.ms,
      (r) => r.cpuMs,
    )} ${both(
      (r) => r.firstMs,
      (r) => r.firstCpuMs,
    )} ${String(runs[0].chunks).padStart(7)}`,
  );
}

// CPU per audio second over the same 20 sentences: this thread's CPU time for the library (after warm-up), and
// the native program's user + system time over one process per sentence (as `flite -t TEXT -o FILE` runs).
const twenty = WER_SENTENCES.slice(0, 20);
let audio = 0;
const cpu0 = process.cpuUsage();
for (const text of twenty) audio += (await once(engine, text)).secs;
const cpu = process.cpuUsage(cpu0);
const ours = (cpu.user + cpu.system) / 1e6;
const dir = mkdtempSync(join(tmpdir(), 'flite-bench-'));
try {
  const which = spawnSync('sh', ['-c', 'command -v flite']);
  if (which.status === 0) {
    let nativeAudio = 0;
    const script = twenty.map((t, i) => `flite -voice slt -t ${JSON.stringify(t)} -o ${join(dir, `${i}.wav`)}`).join('\n');
    const timed = spawnSync('/usr/bin/time', ['-f', '%U %S', 'sh', '-c', script], { encoding: 'utf8' });
    const [user, sys] = timed.stderr.trim().split('\n').pop()!.split(' ').map(Number);
    for (let i = 0; i < twenty.length; i++) nativeAudio += (statSync(join(dir, `${i}.wav`)).size - 44) / 2 / 16_000;
    const native = user + sys;
    console.log(
      `\n20 sentences (bench/texts.ts): library ${ours.toFixed(3)} s CPU for ${audio.toFixed(1)} s audio = ${((1000 * ours) / audio).toFixed(1)} ms CPU per audio second;` +
        ` native flite ${native.toFixed(3)} s for ${nativeAudio.toFixed(1)} s = ${((1000 * native) / nativeAudio).toFixed(1)} ms per audio second (${(ours / audio / (native / nativeAudio)).toFixed(2)}x)`,
    );
  } else {
    console.log(`\n20 sentences: library ${((1000 * ours) / audio).toFixed(1)} ms CPU per audio second (native flite not installed)`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// Memory: the instance's linear memory and the process's resident set, over many sentences in every voice.
const library = FliteLibrary.load();
const voices = ['slt', 'awb', 'rms', 'kal16', 'kal'];
const mib = (b: number): string => `${(b / 1048576).toFixed(1)} MiB`;
const at: string[] = [];
for (let i = 0; i < MEMORY_SENTENCES; i++) {
  await once(engine, WER_SENTENCES[i % WER_SENTENCES.length], { engine: 'flite', base: voices[i % voices.length] });
  if (i === 99 || i === MEMORY_SENTENCES - 1)
    at.push(`after ${i + 1}: wasm memory ${mib(library.memoryBytes)}, rss ${mib(process.memoryUsage().rss)}`);
}
if (MEMORY_SENTENCES > 0) console.log(`\nmemory (${MEMORY_SENTENCES} sentences, all five voices in turn): ${at.join('; ')}`);
