// Sections 16 and 17: Voxsmith beside a server that spawns Debian's flite program per request (the way thin
// TTS wrappers work), and how many of many simultaneous streams play without a gap.
//
// 16: 2 000-character texts (each one new, so nothing is cached) in closed loops of C clients, windows of the
// two servers interleaved so drift in the machine's load falls on both alike; requests/s of each, and their
// ratio per round (median and spread). Voxsmith is asked for the audio the reference answers (flite's own
// 16 000 Hz); at some levels also at its default rate, which resamples and sends more bytes. Meanwhile one
// client asks for short sentences at a steady pace and times their first audio, against the same sentences on
// the idle server.
// 17: N WebSocket streams of ~400 characters sent at the same moment. A listener starts playing at its first
// audio and stalls whenever the audio received so far has all been played; each stream's stalls are computed
// from when each audio message arrived and how many seconds it carried.
import { availableParallelism } from 'node:os';
import { FORMATS } from '../../src/audio/encoders/index.ts';
import { request, speak } from '../http-client.ts';
import { cpuMeter } from '../proc.ts';
import type { Section } from '../report.ts';
import { startSpawnReference, type SpawnReference } from '../spawn-reference.ts';
import { fixed, median, ms, percentile, range } from '../stats.ts';
import { PARAGRAPH_2000, PARAGRAPH_400 } from '../texts.ts';
import { openStreams, speakOnAll } from '../ws-client.ts';

export interface SideBySideOptions {
  voice: string;
  /** The reference's voice name for flite's -voice (the same voice as `voice`). */
  referenceVoice: string;
  /** Client counts of the 2 000-character loops. */
  levels: number[];
  /** Levels at which Voxsmith also runs at its default output rate (a third window per round). */
  defaultRateLevels: number[];
  /** Interleaved rounds per level (each round: one window of each server). */
  rounds: number;
  /** Requests each client sends in one window. */
  requestsPerClient: number;
  /** Simultaneous stream counts of the stall measurement. */
  streams: number[];
  /** Short sentences timed on the idle server. */
  idleShorts: number;
}

/** Longer than this, a gap in playback counts as a stall a listener hears. */
const STALL_MS = 150;
/** The stall target holds while the aggregate RTF of the streams is at most this. */
const EDGE_RTF = 0.6;
/** The scaled count runs only when it is at least this many times the largest count... */
const EDGE_MIN_STEP = 1.25;
/** ...and it is at most this many streams (the service is started with room for them all at once: run.ts). */
export const MAX_EDGE_STREAMS = 160;
/** Interval of the short-sentence prober's requests (it adds a little load to both servers alike). */
const PROBE_EVERY_MS = 250;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A 2 000-character text no earlier request had: its own tag in front, cut back to 2 000. */
const longText = (tag: string) => `${tag}. ${PARAGRAPH_2000}`.slice(0, 2000);
const shortText = (n: number) => `Please call the front desk when the visitor number ${n} arrives at the gate.`;

/** The rate the reference answers at (flite's own): Voxsmith is asked for the same audio. */
const REFERENCE_RATE = 16_000;

/** Voxsmith at the reference's rate, the reference, and Voxsmith at its default rate. */
type Server = 'voxsmith' | 'reference' | 'voxsmith at its default rate';

interface Window {
  server: Server;
  clients: number;
  round: number;
  rps: number;
  errors: number;
  /** Short sentences' first audio meanwhile (ms). */
  shortFirst: number[];
  cpuPercent: number;
  /** The machine's steal meanwhile (% of one core): windows with more had less CPU to work with. */
  stealPercent: number;
}

export async function sideBySide(
  service: { base: string; key: string; pid: number },
  options: SideBySideOptions,
  log: (line: string) => void = () => undefined,
): Promise<Section[]> {
  const reference = await startSpawnReference();
  try {
    return await measure(service, reference, options, log);
  } finally {
    await reference.stop();
  }
}

async function measure(
  service: { base: string; key: string; pid: number },
  reference: SpawnReference,
  options: SideBySideOptions,
  log: (line: string) => void,
): Promise<Section[]> {
  let n = 0;
  const one = async (server: Server, text: string): Promise<{ ok: boolean; firstMs: number }> => {
    const r =
      server !== 'reference'
        ? await speak(service.base, service.key, {
            text,
            voice_id: options.voice,
            format: 'pcm',
            ...(server === 'voxsmith' ? { sample_rate: REFERENCE_RATE } : {}),
          })
        : await request(`${reference.base}/speak`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ text, voice: options.referenceVoice }),
            keepBody: false,
          });
    return { ok: r.status === 200 && r.bytes > 44, firstMs: r.ttfbMs };
  };

  /** C clients in a closed loop of long texts beside the open-loop prober, on one server: one window. */
  const load = async (server: Server, clients: number, round: number): Promise<Window> => {
    const pid = server === 'reference' ? reference.pid : service.pid;
    const cpu = cpuMeter(pid);
    let ok = 0;
    let errors = 0;
    let loading = true;
    const shortFirst: number[] = [];
    // Open loop: a short request every PROBE_EVERY_MS whatever the last one's answer, so both servers get
    // the same short load (a closed loop gave the server that answers sooner more of it to render).
    const probes: Promise<void>[] = [];
    const prober = (async () => {
      while (loading) {
        probes.push(
          one(server, shortText(n++)).then(
            (r) => {
              if (r.ok && loading) shortFirst.push(r.firstMs);
            },
            () => undefined,
          ),
        );
        await sleep(PROBE_EVERY_MS);
      }
      await Promise.all(probes);
    })();
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        for (let i = 0; i < options.requestsPerClient; i++) {
          const r = await one(server, longText(`${server} ${clients} ${round} ${c} ${i}`)).catch(() => ({ ok: false, firstMs: 0 }));
          if (r.ok) ok++;
          else errors++;
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    loading = false;
    const { percent: cpuPercent, stealPercent } = cpu.stop();
    await prober;
    return { server, clients, round, rps: ok / seconds, errors, shortFirst, cpuPercent, stealPercent };
  };

  // One window on each server that is not measured: the service's first loaded seconds were slower than the
  // rest (its heap growing to the load's size, the optimizing compilers at work on every thread: ~1 300 page
  // faults per request against ~100 later, the helper threads three times as busy), and round 0 measured them.
  const warmClients = options.levels[0] ?? 1;
  for (const server of ['voxsmith', 'reference'] as const) await load(server, warmClients, -1);

  // Then the short sentences on the idle servers.
  const idleShort: Record<'voxsmith' | 'reference', number[]> = { voxsmith: [], reference: [] };
  for (let i = 0; i < options.idleShorts; i++) {
    for (const server of ['voxsmith', 'reference'] as const) {
      const r = await one(server, shortText(n++));
      if (r.ok) idleShort[server].push(r.firstMs);
    }
  }

  const windows: Window[] = [];
  for (const clients of options.levels) {
    for (let round = 0; round < options.rounds; round++) {
      // Which server goes first alternates, so a trend in the machine's load favours neither.
      const servers: Server[] = options.defaultRateLevels.includes(clients)
        ? ['voxsmith', 'reference', 'voxsmith at its default rate']
        : ['voxsmith', 'reference'];
      const order = servers.map((_, i) => servers[(i + round) % servers.length]);
      for (const server of order) {
        const w = await load(server, clients, round);
        windows.push(w);
        log(
          `side by side: ${server} at ${clients} clients, round ${round + 1}: ${fixed(w.rps, 2)} req/s, server CPU ${fixed(w.cpuPercent, 0)} %, steal ${fixed(w.stealPercent, 0)} %`,
        );
      }
    }
  }

  const largestStreams = Math.max(...options.streams);
  const streamRows: string[][] = [];
  const streamSummary: string[][] = [];
  /** N streams of each text shape, a row each; their aggregate RTFs. */
  const streamRowsAt = async (count: number, label: string): Promise<number[]> => {
    const rtfs: number[] = [];
    for (const shape of STREAM_TEXTS) {
      const s = await streamsAtOnce(service, options.voice, count, shape.text);
      rtfs.push(s.aggregateRtf);
      log(
        `side by side: ${count} streams, ${shape.name}: ${fixed(s.smoothShare * 100, 0)} % without a stall over ${STALL_MS} ms, worst ${ms(s.worstMs)} ms`,
      );
      streamRows.push([
        label,
        shape.name,
        String(s.ok),
        `${fixed(s.smoothShare * 100, 0)} %`,
        ms(percentile(s.worstPerStream, 50)),
        ms(percentile(s.worstPerStream, 95)),
        ms(s.worstMs),
        ms(percentile(s.firsts, 95)),
        fixed(s.aggregateRtf, 2),
        fixed(s.cpuPercent, 0),
      ]);
      streamSummary.push([
        `${label} streams at once, ${shape.name}: no stall over ${STALL_MS} ms / worst stall / aggregate RTF`,
        `${fixed(s.smoothShare * 100, 0)} % / ${ms(s.worstMs)} ms / ${fixed(s.aggregateRtf, 2)}`,
      ]);
    }
    return rtfs;
  };
  let largestRtfs: number[] = [];
  for (const count of options.streams) {
    const rtfs = await streamRowsAt(count, String(count));
    if (count === largestStreams) largestRtfs = rtfs;
  }
  // The target holds while the server keeps up with all streams at an aggregate RTF up to EDGE_RTF. On a machine
  // fast enough that the largest count stays far below it, one more count, scaled from that count's RTF,
  // measures the order where the target is hardest.
  const edge = Math.min(MAX_EDGE_STREAMS, Math.floor((largestStreams * EDGE_RTF) / Math.max(...largestRtfs)));
  if (edge >= largestStreams * EDGE_MIN_STEP) await streamRowsAt(edge, `${edge} (scaled to RTF ~${EDGE_RTF})`);

  const rows: string[][] = [];
  const summary: string[][] = [];
  const levelRows = (clients: number, kind: Exclude<Server, 'reference'>): void => {
    const at = (server: Server) => windows.filter((w) => w.clients === clients && w.server === server);
    const vox = at(kind);
    const ref = at('reference');
    const ratios = vox.map((w) => w.rps / (ref.find((r) => r.round === w.round)?.rps ?? Number.NaN));
    const shortsUnderLoad = vox.flatMap((w) => w.shortFirst);
    const loadedP95 = percentile(shortsUnderLoad, 95);
    const idleP95 = percentile(idleShort.voxsmith, 95);
    const label = kind === 'voxsmith' ? String(clients) : `${clients}, Voxsmith at its default ${FORMATS.pcm.sampleRate} Hz`;
    rows.push([
      label,
      vox.map((w) => fixed(w.rps, 2)).join(' '),
      ref.map((w) => fixed(w.rps, 2)).join(' '),
      `${fixed(median(ratios), 2)} (${range(ratios, 2)})`,
      fixed(median(vox.map((w) => w.cpuPercent)), 0),
      fixed(median(ref.map((w) => w.cpuPercent)), 0),
      `${vox.map((w) => fixed(w.stealPercent, 0)).join(' ')} / ${ref.map((w) => fixed(w.stealPercent, 0)).join(' ')}`,
      `${ms(loadedP95)} / ${ms(idleP95)} = ${fixed(loadedP95 / idleP95, 2)}`,
      `${ms(
        percentile(
          ref.flatMap((w) => w.shortFirst),
          95,
        ),
      )} / ${ms(percentile(idleShort.reference, 95))}`,
      String([...vox, ...ref].reduce((e, w) => e + w.errors, 0)),
    ]);
    const rate = kind === 'voxsmith' ? `${REFERENCE_RATE} Hz like the reference` : `its default ${FORMATS.pcm.sampleRate} Hz`;
    summary.push([
      `2 000 characters at ${clients} clients, Voxsmith at ${rate}: Voxsmith / spawn-per-request req/s (median ratio, spread)`,
      `${fixed(median(ratios), 2)} (${range(ratios, 2)})`,
    ]);
    if (kind === 'voxsmith')
      summary.push([`short first audio p95 under ${clients} long clients / idle`, `${ms(loadedP95)} / ${ms(idleP95)} ms`]);
  };
  for (const clients of options.levels) levelRows(clients, 'voxsmith');
  for (const clients of options.defaultRateLevels) if (options.levels.includes(clients)) levelRows(clients, 'voxsmith at its default rate');

  return [
    {
      title: '16. Side by side with a spawn-per-request server: 2 000-character texts',
      notes: [
        `Voxsmith: POST /v1/speak, voice ${options.voice}, pcm at sample_rate ${REFERENCE_RATE}, the audio the reference answers. Reference: a small node`,
        `HTTP server (bench/spawn-reference.ts) that runs Debian's /usr/bin/flite -voice ${options.referenceVoice} per request and answers with its WAV`,
        `(${REFERENCE_RATE} Hz). Every text is new (a tag in front, 2 000 characters). Rows "at its default": Voxsmith's pcm without sample_rate`,
        `(${FORMATS.pcm.sampleRate} Hz: resampled, ${fixed(FORMATS.pcm.sampleRate / REFERENCE_RATE, 1)} times the bytes), a third window in the same rounds; its short first audio against the idle ${REFERENCE_RATE} Hz one.`,
        `Each window: C clients in a closed loop, ${options.requestsPerClient} requests each; req/s = requests / window seconds. The servers' windows`,
        `alternate (${options.rounds} rounds per level, the first server rotating), and the ratio is taken per round: median (min–max).`,
        `The service is measured once all its synthesis threads are warm and it has gone quiet, and both servers after one unmeasured window at ${warmClients} clients.`,
        `Meanwhile a prober asks the same server for a new short sentence every ${PROBE_EVERY_MS} ms (open loop: the same short load on both): its first audio`,
        `(time to the first body byte; the reference's is its whole answer) against the same on the idle server (${options.idleShorts} each).`,
        'Server CPU: the server process (the reference: its own process; the flite programs it spawns are not counted).',
        `Steal: what the hypervisor gave other guests of this virtual machine during each window, in % of one core (of ${availableParallelism() * 100} %).`,
      ],
      headers: [
        'clients',
        'Voxsmith req/s by round',
        'reference req/s by round',
        'ratio',
        'Voxsmith CPU %',
        'reference CPU %',
        'steal % by round, Voxsmith / reference',
        'Voxsmith short first audio p95 ms loaded / idle',
        'reference short p95 ms loaded / idle',
        'errors',
      ],
      rows,
      summary,
    },
    {
      title: '17. Many streams at once: stalls',
      notes: [
        `Voice ${options.voice}; N WebSocket connections each send ~400 characters at the same moment, numbered so none is cached: three sentences`,
        '(the number in brackets at the end), or the same after a first sentence of four words ("Stream 12 of 64."): that one plays for about',
        "a second, and the stream's next sentence must arrive within it while every other stream's first audio still goes first.",
        'Each listener starts playing at its first audio and stalls whenever everything received has been played (arrival time and seconds of',
        'each audio message). Worst stall per stream: its longest single gap. Aggregate RTF = wall seconds from sending to the last "done" /',
        `mean audio seconds per stream (below 1: the server keeps up with all of them together). Target: ≥ 95 % of streams with no stall over ${STALL_MS} ms`,
        `while the aggregate RTF is at most ${EDGE_RTF}. Where ${largestStreams} streams stay well below that (a fast machine), a further row scales the count up to`,
        `reach it (at most ${MAX_EDGE_STREAMS}; this service is started with room for that many syntheses at once, SYNTHESIS_SLOTS_PER_WORKER in run.ts).`,
      ],
      headers: [
        'streams',
        'text',
        'ok',
        `no stall > ${STALL_MS} ms`,
        'worst stall p50 ms',
        'p95 ms',
        'max ms',
        'first audio p95 ms',
        'aggregate RTF',
        'server CPU %',
      ],
      rows: streamRows,
      summary: streamSummary,
    },
  ];
}

interface Stalls {
  ok: number;
  smoothShare: number;
  worstPerStream: number[];
  worstMs: number;
  firsts: number[];
  aggregateRtf: number;
  cpuPercent: number;
}

/** The longest single gap a listener of this stream heard (ms), playing from its first audio. */
export function worstStallMs(arrivals: readonly { ms: number; seconds: number }[]): number {
  if (arrivals.length === 0) return Number.NaN;
  const start = arrivals[0].ms;
  let received = 0;
  let stalled = 0;
  let worst = 0;
  for (const a of arrivals) {
    const runsOut = start + stalled + received * 1000;
    if (a.ms > runsOut) {
      worst = Math.max(worst, a.ms - runsOut);
      stalled += a.ms - runsOut;
    }
    received += a.seconds;
  }
  return worst;
}

/** What each of N streams says: the i-th of `count`. */
const STREAM_TEXTS: readonly { name: string; text: (i: number, count: number) => string }[] = [
  { name: 'three sentences', text: (i, count) => `${PARAGRAPH_400} (Stream ${i + 1} of ${count}.)` },
  { name: 'short first sentence', text: (i, count) => `Stream ${i + 1} of ${count}. ${PARAGRAPH_400}` },
];

async function streamsAtOnce(
  service: { base: string; key: string; pid: number },
  voice: string,
  count: number,
  text: (i: number, count: number) => string,
): Promise<Stalls> {
  const clients = await openStreams(service.base, service.key, count);
  const cpu = cpuMeter(service.pid);
  const t0 = performance.now();
  const results = await speakOnAll(clients, (i) => text(i, count), voice);
  const wall = (performance.now() - t0) / 1000;
  const cpuPercent = cpu.stop().percent;
  const ok = results.filter((r) => !r.error && r.audioSeconds > 0);
  const worstPerStream = ok.map((r) => worstStallMs(r.arrivals));
  const meanAudio = ok.reduce((s, r) => s + r.audioSeconds, 0) / Math.max(1, ok.length);
  return {
    ok: ok.length,
    // Failed streams count as stalled.
    smoothShare: worstPerStream.filter((w) => w <= STALL_MS).length / count,
    worstPerStream,
    worstMs: Math.max(...worstPerStream),
    firsts: ok.map((r) => r.firstChunkMs),
    aggregateRtf: wall / meanAudio,
    cpuPercent,
  };
}
