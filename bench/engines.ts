// Real-time factor of each engine voice (compute seconds per audio second; lower is faster) on a
// 25-word English sentence, median of several runs after warm-up; plus the whole pipeline in-process (engine,
// resampling, shaping and level, then 16-bit PCM as the stream and Wyoming send it, or MP3, /v1/speak's
// default) and the first-chunk latency through the worker pool.
// Run: node --import tsx bench/engines.ts [runs]
import { availableParallelism } from 'node:os';
import { createResampler } from '../src/audio/resample.ts';
import { createEncoder, OUTPUT_RATE } from '../src/audio/encoders/index.ts';
import { renderSpeech } from '../src/synth/pipeline.ts';
import { loadEngine } from '../src/synth/registry.ts';
import { createSynthesizer } from '../src/synth/synthesizer.ts';
import { createLevelStage, voiceGain } from '../src/synth/voice-loudness.ts';
import type { VoiceSpec } from '../src/synth/voice-spec.ts';

// bench/run.ts passes its own 25-word sentence here, so every table of the main bench speaks the same texts.
const TEXT =
  process.env.BENCH_ENGINE_TEXT ??
  'The committee will meet again next Tuesday morning to review the budget, discuss the new library plans, and vote on the proposal together.';
const RUNS = Math.max(3, Number(process.argv[2] ?? 9));

const VOICES: VoiceSpec[] = [
  { engine: 'espeak', base: 'en-us' },
  { engine: 'espeak', base: 'en-us', variant: 'f1', controls: { pitchHz: 190, breath: 20 } },
  { engine: 'espeak', base: 'de' },
  { engine: 'flite', base: 'slt' },
  { engine: 'flite', base: 'awb' },
  { engine: 'flite', base: 'rms' },
  { engine: 'flite', base: 'kal16' },
  { engine: 'flite', base: 'kal' },
];

const warmed = new Set<string>();

/**
 * A turn of the event loop, as a worker takes between two requests (each comes in its own message): what a
 * stream leaves to be done once its last bytes are out, such as opening the next MP3 encoder, is done there, not
 * within the next request's time. Back to back in one promise chain, every run would open its encoder cold.
 */
const betweenRequests = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const label = (v: VoiceSpec): string => `${v.engine}/${v.base}${v.variant ? `+${v.variant}` : ''}${v.controls ? ' (controls)' : ''}`;

interface Rtfs {
  audio: number;
  engineMs: number;
  engine: number;
  pcm: number;
  mp3: number;
  firstMs: number;
}

/**
 * The engine alone and the pipeline to pcm and to mp3, run in turn (engine, pcm, mp3, engine, ...) so that a
 * slower stretch of the machine (another tenant, a frequency change) weighs on all three alike: measured one
 * block after another, the ratio of two medians moved between 0.9 and 2 for the same code.
 */
async function measureRtfs(voice: VoiceSpec): Promise<Rtfs> {
  const engine = await loadEngine(voice.engine);
  const engineOnce = async (): Promise<{ secs: number; ms: number }> => {
    const t = performance.now();
    let samples = 0;
    let rate = 1;
    for await (const c of engine.synthesize(TEXT, voice, { speed: 1 })) {
      samples += c.samples.length;
      rate = c.sampleRate;
    }
    return { secs: samples / rate, ms: performance.now() - t };
  };
  const pipelineOnce = async (format: 'pcm' | 'mp3'): Promise<{ ms: number; first: number; secs: number }> => {
    await betweenRequests();
    const t = performance.now();
    let first = 0;
    const r = await renderSpeech(
      { text: TEXT, voice, speed: 1, format },
      {
        emit: async () => {
          first ||= performance.now() - t;
        },
      },
    );
    return { ms: performance.now() - t, first, secs: r.seconds };
  };
  // As the service does before it serves: V8 compiles the engines' WebAssembly to optimized code only after it
  // has run a while, so the first voice of an engine was measured half on unoptimized code (espeak/en-us: 34 ms
  // for the engine alone against 19 ms one voice later, and its ratios off by 0.2-0.5).
  if (!warmed.has(voice.engine)) {
    await engine.warmUp();
    warmed.add(voice.engine);
  }
  for (let i = 0; i < 3; i++) {
    await engineOnce();
    await pipelineOnce('pcm');
    await pipelineOnce('mp3');
  }
  const runs: Array<{
    engine: { secs: number; ms: number };
    pcm: { ms: number; secs: number };
    mp3: { ms: number; first: number; secs: number };
  }> = [];
  for (let i = 0; i < RUNS; i++) runs.push({ engine: await engineOnce(), pcm: await pipelineOnce('pcm'), mp3: await pipelineOnce('mp3') });
  const engineMs = median(runs.map((r) => r.engine.ms));
  const audio = runs[0].engine.secs;
  return {
    audio,
    engineMs,
    engine: engineMs / 1000 / audio,
    pcm: median(runs.map((r) => r.pcm.ms)) / 1000 / runs[0].pcm.secs,
    mp3: median(runs.map((r) => r.mp3.ms)) / 1000 / runs[0].mp3.secs,
    firstMs: median(runs.map((r) => r.mp3.first)),
  };
}

// The pipeline's stages one after another on the engine's own chunks, each timed alone with the project's
// modules: where the pipeline's cost over the engine goes. (Shaping — trims, fades, gains — is not a stage here;
// the level stage gets the voice's gain applied first, as in the pipeline.)
async function stageSplit(voice: VoiceSpec): Promise<void> {
  const engine = await loadEngine(voice.engine);
  const gain = await voiceGain(engine, voice);
  const once = async (): Promise<number[]> => {
    await betweenRequests();
    let t = performance.now();
    const chunks: Float32Array[] = [];
    let rate = OUTPUT_RATE;
    for await (const c of engine.synthesize(TEXT, voice, { speed: 1 })) {
      chunks.push(c.samples);
      rate = c.sampleRate;
    }
    const engineMs = performance.now() - t;
    t = performance.now();
    const resampler = await createResampler(rate, OUTPUT_RATE);
    const resampled = [...chunks.map((c) => resampler.process(c)), resampler.flush()];
    const resampleMs = performance.now() - t;
    // The voice's loudness gain comes before the level stage, as in the pipeline: a raised voice is limited more.
    const gained = resampled.map((c) => c.map((v) => v * gain));
    t = performance.now();
    const level = createLevelStage(OUTPUT_RATE);
    const levelled = [...gained.map((c) => level.process(c)), level.flush()];
    const levelMs = performance.now() - t;
    t = performance.now();
    const encoder = await createEncoder('mp3');
    for (const c of levelled) encoder.write(c);
    encoder.end();
    return [engineMs, resampleMs, levelMs, performance.now() - t];
  };
  for (let i = 0; i < 2; i++) await once();
  const runs: number[][] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await once());
  const m = [0, 1, 2, 3].map((k) => median(runs.map((r) => r[k])));
  const pct = (x: number) => `${((100 * x) / m[0]).toFixed(0)} %`;
  console.log(
    `split ${label(voice)}: engine ${m[0].toFixed(1)} ms, resample ${m[1].toFixed(1)} ms (${pct(m[1])}), level ${m[2].toFixed(1)} ms (${pct(m[2])}), mp3 encode ${m[3].toFixed(1)} ms (${pct(m[3])}); resample + encode = ${pct(m[1] + m[3])} of the engine`,
  );
}

async function poolFirstChunk(): Promise<void> {
  const workers = availableParallelism();
  const t0 = performance.now();
  const s = createSynthesizer({ workers });
  await s.ready();
  console.log(`\npool: ${workers} workers ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  for (const voice of [VOICES[0], VOICES[3]]) {
    const firsts: number[] = [];
    const totals: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      let first = 0;
      for await (const _ of s.speak({ text: `${TEXT} ${TEXT}`, voice, speed: 1, format: 'mp3' })) first ||= performance.now() - t;
      firsts.push(first);
      totals.push(performance.now() - t);
    }
    console.log(
      `  ${label(voice).padEnd(36)} first chunk ${median(firsts).toFixed(0).padStart(5)} ms   whole (2 sentences) ${median(totals).toFixed(0).padStart(5)} ms`,
    );
  }
  await s.close();
}

console.log(`25-word sentence, median of ${RUNS} runs after warm-up; RTF = compute time / audio time\n`);
console.log(
  `${'voice'.padEnd(36)} ${'audio s'.padStart(8)} ${'engine ms'.padStart(10)} ${'engine RTF'.padStart(11)} ${'pcm RTF'.padStart(9)} ${'mp3 RTF'.padStart(9)} ${'1st chunk ms'.padStart(13)}`,
);
for (const voice of VOICES) {
  const r = await measureRtfs(voice);
  console.log(
    `${label(voice).padEnd(36)} ${r.audio.toFixed(2).padStart(8)} ${r.engineMs.toFixed(1).padStart(10)} ${r.engine.toFixed(4).padStart(11)} ${r.pcm.toFixed(4).padStart(9)} ${r.mp3.toFixed(4).padStart(9)} ${r.firstMs.toFixed(1).padStart(13)}`,
  );
}
console.log('');
for (const voice of [VOICES[0], VOICES[3]]) await stageSplit(voice);
await poolFirstChunk();
