// `npm run bench`: starts the real service in its own process and measures it from outside: engine
// speed, /v1/speak latency, WebSocket first-chunk latency and capacity, throughput with the server's CPU,
// event-loop responsiveness under load, memory, fair sharing, the cache, the default voice's word error rate
// (pocketsphinx), clone pace on new text and start-up time. Prints Markdown tables and writes bench/RESULTS.md.
//   npm run bench                  the full run (about 6-7 minutes on 2 cores)
//   npm run bench -- --quick       a smoke run with few repetitions; does not write RESULTS.md
//   npm run bench -- --only side-by-side   sections 16, 17 and 18 alone (with --quick too); does not write RESULTS.md
//   npm run bench -- --only input-streaming   section 19 alone (with --quick too); does not write RESULTS.md
//   npm run bench -- --only off-loop       section 21 alone; does not write RESULTS.md
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { agent } from './http-client.ts';
import { Probe } from './probe.ts';
import { machineBusySeconds, machineStealSeconds, memory, ownCpuSecondsWithChildren } from './proc.ts';
import { renderSection, table, type Section } from './report.ts';
import { engineRtf } from './sections/engine-rtf.ts';
import { mixedMemory } from './sections/memory.ts';
import { neuralEngines } from './sections/neural.ts';
import { speakLatency } from './sections/speak-latency.ts';
import { streamCapacity } from './sections/stream-capacity.ts';
import { streamLatency } from './sections/stream-latency.ts';
import { throughput, PROBE_PATH } from './sections/throughput.ts';
import { cacheHit } from './sections/cache-hit.ts';
import { clonePace } from './sections/clone-pace.ts';
import { fairness } from './sections/fairness.ts';
import { jobsBench } from './sections/jobs.ts';
import { streamsAtOnce } from './sections/streams-64.ts';
import { MAX_EDGE_STREAMS, sideBySide, type SideBySideOptions } from './sections/side-by-side.ts';
import { cpuPerAudioSecond } from './sections/cpu-per-audio.ts';
import { startup } from './sections/startup.ts';
import { offLoop } from './sections/off-loop.ts';
import { wordErrorRate } from './sections/wer.ts';
import { inputStreamingUnderLoad } from './sections/input-streaming-load.ts';
import { vendorSockets } from './sections/vendor-sockets.ts';
import { allThreadsWarm, startService, type BenchService } from './service.ts';
import { fixed } from './stats.ts';
import { VOICES } from './texts.ts';
import { defaultWorkers } from '../src/synth/pool.ts';

const quick = process.argv.includes('--quick');
const SETTINGS = quick
  ? { engineRuns: 3, runs: 3, mixed: 100, windowMs: 3_000, idleMs: 1_000, maxStreams: 8, rampBudgetMs: 20_000, streamsAtOnce: 16 }
  : { engineRuns: 9, runs: 10, mixed: 500, windowMs: 8_000, idleMs: 3_000, maxStreams: 256, rampBudgetMs: 70_000, streamsAtOnce: 64 };
const SIDE_BY_SIDE: SideBySideOptions = {
  voice: VOICES[0],
  referenceVoice: 'slt',
  levels: [4, 16],
  defaultRateLevels: [4],
  rounds: quick ? 1 : 3,
  requestsPerClient: quick ? 1 : 2,
  streams: [32, 64],
  idleShorts: quick ? 5 : 20,
};
const ONLY = ['side-by-side', 'input-streaming', 'voice-agents', 'off-loop'] as const;
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt >= 0 ? process.argv[onlyAt + 1] : undefined;
if (only !== undefined && !(ONLY as readonly string[]).includes(only)) throw new Error(`--only takes one of: ${ONLY.join(', ')}`);
const RESULTS = fileURLToPath(new URL('./RESULTS.md', import.meta.url));

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ');
const began = performance.now();
const machineBusy0 = machineBusySeconds();
const steal0 = machineStealSeconds();
const own0 = ownCpuSecondsWithChildren();
const log = (line: string) => process.stderr.write(`[bench ${((performance.now() - began) / 1000).toFixed(0).padStart(3)} s] ${line}\n`);

const machine = {
  date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  cores: availableParallelism(),
  cpu: cpus()[0]?.model.trim() ?? 'unknown',
  node: process.version,
  loadStart: load(),
};
const header = [
  `Date: ${machine.date}`,
  `Machine: ${machine.cores} cores, ${machine.cpu}; Node ${machine.node}; ${process.platform}/${process.arch}`,
  `Load average at start (1/5/15 min): ${machine.loadStart}`,
];
/** What the hypervisor took since the bench began (steal): core-seconds, its share of the machine, and a report line. */
const steal = (): { share: number; line: string } => {
  const seconds = machineStealSeconds() - steal0;
  const share = seconds / (((performance.now() - began) / 1000) * machine.cores);
  return {
    share,
    line: `CPU the hypervisor gave other guests meanwhile (steal): ${fixed(seconds, 0)} core-seconds (${fixed(share * 100, 0)} % of the machine)`,
  };
};
process.stdout.write(`# Voxsmith benchmark${quick ? ' (quick)' : ''}\n\n${header.join('\n')}\n\n`);

const sections = new Map<number, Section>();
const done = (n: number, s: Section) => {
  sections.set(n, s);
  process.stdout.write(`${renderSection(s)}\n`);
};

// Every service here runs compiled, as `npm start` runs it; built once now so no measured start pays for it.
const built = spawnSync(process.execPath, [fileURLToPath(new URL('../scripts/build.mjs', import.meta.url))], { stdio: 'inherit' });
if (built.status !== 0) throw new Error(`building the service failed (${built.status ?? built.signal})`);

/** Sections 16-18 on a service of their own, with the bench's lifted limits (no cache, no per-key limit). */
async function sideBySideSections(): Promise<void> {
  // Room for every stream of section 17 at once (its scaled row), over the service's default threads.
  const own = await startService({ env: { SYNTHESIS_SLOTS_PER_WORKER: String(Math.ceil(MAX_EDGE_STREAMS / defaultWorkers())) } });
  try {
    await allThreadsWarm(own);
    const [tp, stalls] = await sideBySide({ base: own.base, key: own.key, pid: own.pid }, SIDE_BY_SIDE, log);
    done(16, tp);
    done(17, stalls);
    log('18 CPU per second of audio: the service against the native program');
    done(18, await cpuPerAudioSecond(own, SIDE_BY_SIDE.voice, SIDE_BY_SIDE.referenceVoice, quick ? 3 : 10));
  } finally {
    await own.stop();
  }
}

/** Section 19 on a service of its own: busy loops beside it would disturb every other measurement. */
async function inputStreamingSection(): Promise<void> {
  const own = await startService();
  try {
    await allThreadsWarm(own);
    done(19, await inputStreamingUnderLoad(own.base, own.key, VOICES[0], quick ? 2 : 6));
  } finally {
    await own.stop();
  }
}

async function voiceAgentSection(): Promise<void> {
  const own = await startService();
  try {
    done(20, await vendorSockets(own.base, own.key, quick ? 3 : 10));
  } finally {
    await own.stop();
  }
}

if (only === 'voice-agents') {
  log('20 voice-agent sockets: first audio and barge-in');
  await voiceAgentSection();
  agent.destroy();
  process.exit(0);
}

if (only === 'input-streaming') {
  log('19 input streaming under CPU load');
  await inputStreamingSection();
  agent.destroy();
  process.stdout.write(`Load average at end (1/5/15 min, includes the bench itself): ${load()}\n`);
  process.exit(0);
}

if (only === 'side-by-side') {
  log('16-18: side by side with a spawn-per-request server, stalls of many streams, CPU per audio second');
  await sideBySideSections();
  agent.destroy();
  process.stdout.write(`Load average at end (1/5/15 min, includes the bench itself): ${load()}\n`);
  process.stdout.write(`${steal().line}\n`);
  process.exit(0);
}

if (only === 'off-loop') {
  const own = await startService();
  try {
    done(21, await offLoop(own.base, own.key));
  } finally {
    await own.stop();
    agent.destroy();
  }
  process.exit(0);
}

log('1/7 engines (bench/engines.ts), before the service starts');
done(1, await engineRtf(SETTINGS.engineRuns));

log('8 neural engines on the generated test models, before the service starts');
done(8, await neuralEngines(SETTINGS.engineRuns));

log('starting the service (npm start: the compiled dist/) with a fresh data folder');
const service: BenchService = await startService();
const probe = Probe.launch();
// Ctrl-C reaches the service too (same process group); wait for it and remove its data folder.
process.once('SIGINT', () => {
  void Promise.all([probe.close(), service.stop()]).finally(() => process.exit(130));
});
let startSeconds = Number.NaN;
try {
  startSeconds = service.startSeconds;
  log(`service ready in ${startSeconds.toFixed(1)} s (pid ${service.pid})`);

  log(`7/7 memory: ${SETTINGS.mixed} mixed requests (they also warm the service up)`);
  const mem = await mixedMemory(service.base, service.key, service.pid, SETTINGS.mixed, 8);

  log('2/7 /v1/speak latency');
  done(2, await speakLatency(service.base, service.key, SETTINGS.runs));

  log('3/7 WebSocket first chunk');
  const latency = await streamLatency(service.base, service.key, SETTINGS.runs);
  done(3, latency.section);

  log('21 work kept off the event loop: a million-heading job, a deep PLS, a 2 000-rule lexicon');
  done(21, await offLoop(service.base, service.key));

  log('12 word error rate: native flite vs the service, heard by pocketsphinx');
  done(12, await wordErrorRate(service.base, service.key, VOICES[0]));

  log("14 clone pace: clones of festival's slt and kal reading new sentences");
  done(14, await clonePace(service.base, service.key));

  log('5/7 + 6/7 throughput with CPU and event-loop probe');
  const tp = await throughput(service.base, service.key, service.pid, probe, {
    voice: VOICES[0],
    levels: [1, 8, 32],
    windowMs: SETTINGS.windowMs,
    idleMs: SETTINGS.idleMs,
  });

  log('4/7 concurrent streams ramp');
  const capacity = await streamCapacity(service.base, service.key, service.pid, {
    voice: VOICES[0],
    maxStreams: SETTINGS.maxStreams,
    budgetMs: SETTINGS.rampBudgetMs,
  });
  done(4, capacity.section);
  done(5, tp.throughput);
  done(6, tp.eventLoop);

  log(`10 ${SETTINGS.streamsAtOnce} streams at once`);
  done(10, (await streamsAtOnce(service.base, service.key, VOICES[0], SETTINGS.streamsAtOnce)).section);

  const end = memory(service.pid);
  mem.section.rows.push(['end of the whole bench', fixed(end.rssMiB, 0), fixed(end.peakRssMiB, 0)]);
  mem.section.summary?.push(['server RSS at the end of the whole bench (target ≤ 400 MiB)', `${fixed(end.rssMiB, 0)} MiB`]);
  done(7, mem.section);
} finally {
  await probe.close();
  await service.stop();
}

// Fair sharing and the cache need the service's default limits (the one above lifts them for its single key).
log('9 + 11: a second service with the default MAX_CONCURRENT_PER_KEY and CACHE_MB');
const defaults = await startService({ env: { MAX_CONCURRENT_PER_KEY: '4', CACHE_MB: '32' }, keys: 2 });
try {
  const [keyA, keyB] = defaults.keys as [string, string];
  log("9 fair sharing: key B beside key A's three long requests");
  done(9, (await fairness(defaults.base, keyA, keyB, VOICES[0], SETTINGS.runs * 2)).section);
  log('11 synthesis cache hits');
  done(11, await cacheHit(defaults.base, keyB, VOICES[0], SETTINGS.runs));
} finally {
  await defaults.stop();
  agent.destroy();
}

log("15 long-form jobs: a 100 000-character book, and a sentence's first audio while it renders");
const books = await startService({ env: {}, keys: 1 });
try {
  done(15, await jobsBench(books.base, books.keys[0] as string, VOICES[0], defaultWorkers(), SETTINGS.runs));
} finally {
  await books.stop();
  agent.destroy();
}

log('16-18: side by side with a spawn-per-request server, stalls of many streams, CPU per audio second');
await sideBySideSections();
agent.destroy();

log('19 input streaming: last word to first audio, quiet and with six busy loops');
await inputStreamingSection();

log('20 voice-agent sockets: first audio and barge-in');
await voiceAgentSection();

log('13 start to ready and idle memory with 2 workers');
done(13, await startup(quick ? 1 : 3));

const summary = [
  ['service start to ready (engines loaded and warm)', `${fixed(startSeconds, 1)} s`],
  ...[...sections.keys()].sort((a, b) => a - b).flatMap((k) => sections.get(k)?.summary ?? []),
];
const total = (performance.now() - began) / 1000;
// The load average counts the bench itself; what other processes used is the machine's busy time
// minus ours (this process, the service, the probe and bench/engines.ts, all ended and reaped by now).
const others = machineBusySeconds() - machineBusy0 - (ownCpuSecondsWithChildren() - own0);
const othersShare = Math.max(0, others) / (total * machine.cores);
const stolen = steal();
const footer = [
  `Load average at end (1/5/15 min, includes the bench itself): ${load()}`,
  `Bench wall time: ${fixed(total, 0)} s; CPU used by other processes meanwhile: ${fixed(Math.max(0, others), 0)} core-seconds (${fixed(othersShare * 100, 0)} % of the machine)`,
  stolen.line,
];
// Measured CPU of other processes, not the load average: the 1-minute average still remembers work that ended
// before the bench began.
const busy = othersShare > 0.1;
const caveat = [
  busy ? "**Other work shared the cores during this run (other engineers' tests), so these numbers are pessimistic.**" : '',
  stolen.share > 0.05
    ? '**The hypervisor took a share of the cores during this run (steal), so absolute numbers are pessimistic and windows compared with each other unequally loaded.**'
    : '',
]
  .filter(Boolean)
  .join('\n');
process.stdout.write(`## Summary\n\n${table(['measure', 'value'], summary)}\n\n${[...footer, caveat].filter(Boolean).join('\n')}\n`);

if (!quick) {
  const doc = [
    '# Voxsmith benchmark results',
    '',
    'Produced by `npm run bench` (bench/run.ts): the real service (`npm start`: the compiled dist/) in its own process with a fresh',
    `SQLite data folder, default WORKERS (one per core and one more), RATE_LIMIT_PER_MINUTE raised, driven over loopback by`,
    `the bench process (which shares the same cores). Event-loop probe: GET ${PROBE_PATH}.`,
    '',
    ...header.map((l) => `${l}  `),
    ...footer.map((l) => `${l}  `),
    ...(caveat ? ['', caveat] : []),
    '',
    '## Summary',
    '',
    table(['measure', 'value'], summary),
    '',
    ...[...sections.keys()].sort((a, b) => a - b).map((k) => renderSection(sections.get(k) as Section)),
  ].join('\n');
  await writeFile(RESULTS, doc);
  log(`wrote ${RESULTS}`);
}
