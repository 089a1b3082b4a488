// Section 1: each engine's real-time factor, from the engines' own bench (bench/engines.ts), run in a
// child process before the service starts so nothing else competes for the cores.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Section } from '../report.ts';
import { SENTENCE_25_WORDS } from '../texts.ts';

const ENGINES_BENCH = fileURLToPath(new URL('../engines.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// One row of its table: label, audio s, engine ms, engine RTF, pipeline RTF to pcm, to mp3, first chunk ms.
const ROW = /^(\S+(?: \(controls\))?)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$/;

function run(runs: number): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ENGINES_BENCH, String(runs)], {
      cwd: ROOT,
      env: { ...process.env, BENCH_ENGINE_TEXT: SENTENCE_25_WORDS },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, out }));
  });
}

export async function engineRtf(runs: number): Promise<Section> {
  const { code, out } = await run(runs);
  const rows = out
    .split('\n')
    .map((line) => ROW.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    // pipeline RTF / engine RTF: the target is at most 1.3.
    .map((m) => {
      const ratio = (pipeline: string) => (Number(pipeline) / Number(m[4])).toFixed(2);
      return [m[1], m[2], m[3], m[4], m[5], ratio(m[5]), m[6], ratio(m[6]), m[7]];
    });
  const rtfOf = (label: string) => rows.find((r) => r[0] === label);
  const summary = ['espeak/en-us', 'flite/slt']
    .map(rtfOf)
    .filter((r): r is string[] => r !== undefined)
    .map((r) => [
      `engine RTF ${r[0]} (engine / pipeline to pcm / to mp3; pipeline ÷ engine pcm, mp3; target ≤ 1.3)`,
      `${r[3]} / ${r[4]} / ${r[6]}; ${r[5]}, ${r[7]}`,
    ]);
  const pool = out.split('\n').filter((l) => /^(pool:|split )|first chunk/.test(l.trim()));
  return {
    title: '1. Engine real-time factor (bench/engines.ts)',
    notes: [
      `25-word English sentence ("${SENTENCE_25_WORDS}"), median of ${runs} runs after warm-up, in one thread of the bench process.`,
      'RTF = synthesis seconds / audio seconds (lower is faster). "engine" is the engine alone at its native rate;',
      '"pipeline" adds resampling to 24 kHz, shaping and the level stage, then 16-bit PCM (what the WebSocket stream and',
      'Wyoming send) or MP3 (/v1/speak\'s default); "1st chunk" is the MP3 pipeline\'s first encoded chunk.',
      '"÷ engine" = pipeline RTF / engine RTF (target ≤ 1.3). The "split" lines below time the stages one by one',
      "on the engine's own chunks (src/audio/resample.ts, the level stage of src/synth/voice-loudness.ts, the mp3 encoder).",
      ...(code === 0 ? [] : [`**bench/engines.ts exited with code ${code}**; its output is below.`]),
    ],
    headers: ['voice', 'audio s', 'engine ms', 'engine RTF', 'pcm RTF', 'pcm ÷ engine', 'mp3 RTF', 'mp3 ÷ engine', '1st chunk ms'],
    rows,
    // Its table could not be read (its format changed?): show what it printed instead.
    summary,
    raw: rows.length === 0 || code !== 0 ? out : pool.map((l) => l.trim()).join('\n'),
  };
}
