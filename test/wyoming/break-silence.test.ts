// The break silence bomb, through the real service on the doors it reached: HTTP (/v1/speak, SSML and plain text
// with <break/> tags) and Wyoming (unauthenticated by design). 1 999 breaks of 10 s in 42 KB once made the process
// allocate every second of that silence at once (280 MiB → 5.9 GB, held afterwards). Now total break time per
// request is bounded, counted toward MAX_AUDIO_SECONDS before any of it is made, and silence is streamed in small
// chunks, so the service's peak RSS (VmHWM, reset before each case) stays within RSS_BOUND_MIB of what it was.
// Each door gets a service process of its own: memory one case freed and the allocator kept would otherwise hide
// the next case's peak.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_BREAK_SECONDS, MAX_BREAK_SECONDS_PER_REQUEST } from '../../src/synth/text/ssml-values.ts';
import { encodeEvent, FrameReader, type WyomingEvent } from '../../src/wyoming/frames.ts';
import { freePort, signedInKey, startProcess, type ServiceProcess } from '../helpers/process.ts';
import { SmtpSink } from '../helpers/smtp-sink.ts';

/**
 * How far a case may raise the service's peak RSS. Silence at 22 050 Hz is 88 KB of float samples a second: the
 * old pipeline made a request's 300 s of allowed breaks at once (26 MB), then as much again resampled and
 * levelled; four such requests at once raised the peak by ~200 MiB here, and it was held afterwards. Streamed,
 * each holds about a second of audio plus what flow control lets run ahead (~2 s): measured +5-20 MiB.
 */
const RSS_BOUND_MIB = 64;
/** Requests at once per case: MAX_CONCURRENT_PER_KEY's default. */
const AT_ONCE = 4;
const ORIGIN = 'http://voxsmith.test';

const dataDir = mkdtempSync(join(tmpdir(), 'voxsmith-break-bomb-'));
const mail = new SmtpSink();
let env: Record<string, string>;
let service: ServiceProcess | undefined;
let key: string;

before(async () => {
  // One worker: a request's silence is made on one thread; no cache: every case is synthesized.
  env = {
    DATA_DIR: dataDir,
    PUBLIC_URL: ORIGIN,
    SMTP_URL: await mail.start(),
    WORKERS: '1',
    CACHE_MB: '0',
    RATE_LIMIT_PER_MINUTE: '10000',
  };
});
after(async () => {
  await service?.stop();
  await mail.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const mib = (kib: number): number => Math.round(kib / 102.4) / 10;

function status(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  assert.ok(m, `${field} in /proc/${pid}/status`);
  return Number(m[1]);
}

/** Runs `work` and answers how much it raised the service's peak RSS, in MiB. */
async function peakRise<T>(work: () => Promise<T>): Promise<{ result: T; riseMib: number }> {
  const pid = service?.child.pid;
  assert.ok(pid);
  // Writing 5 resets VmHWM to the current RSS (Linux 4.0+), so the peak measured is this case's alone.
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const before = status(pid, 'VmRSS');
  const result = await work();
  return { result, riseMib: mib(status(pid, 'VmHWM') - before) };
}

async function post(path: string, json: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${service?.base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(json),
  });
}

/** The issue's document: "<speak>hi" + 1 999 breaks of 10 s (42 KB). */
const BOMB = `<speak>hi${'<break time="10s"/>'.repeat(1999)}</speak>`;
const PLAIN_BOMB = `hi${' <break time="10s"/>'.repeat(1999)}`;
/** As much break time as one request may have, all of it after one word. */
const ALLOWED = `<speak>Hello.${`<break time="${MAX_BREAK_SECONDS}s"/>`.repeat(MAX_BREAK_SECONDS_PER_REQUEST / MAX_BREAK_SECONDS)}</speak>`;
/** Long streams before measuring: the threads' heaps and malloc arenas grow to their working size once per process. */
const WARM = `<speak>Good morning.${'<break time="10s"/>'.repeat(6)}Welcome back.</speak>`;

/** POSTs to /v1/speak and counts the audio bytes without keeping them. */
async function speak(text: string): Promise<{ status: number; bytes: number; code?: string }> {
  const res = await post('/v1/speak', { text, voice_id: 'flite-slt', format: 'pcm' }, { authorization: `Bearer ${key}` });
  if (res.status !== 200) return { status: res.status, bytes: 0, code: ((await res.json()) as { code: string }).code };
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  return { status: 200, bytes };
}

/** One Wyoming `synthesize`: the PCM bytes it answered (counted, not kept) or its error event. */
async function wyoming(port: number, text: string): Promise<{ bytes: number; rate?: number; error?: WyomingEvent }> {
  const socket = connect(port, '127.0.0.1');
  const reader = new FrameReader();
  let bytes = 0;
  let rate: number | undefined;
  try {
    return await new Promise((resolve, reject) => {
      socket.on('data', (b: Buffer) => {
        for (const e of reader.push(b)) {
          if (e.type === 'audio-start') rate = e.data.rate as number;
          else if (e.type === 'audio-chunk') bytes += e.payload?.length ?? 0;
          else if (e.type === 'audio-stop') resolve({ bytes, rate });
          else if (e.type === 'error') resolve({ bytes, error: e });
        }
      });
      socket.on('error', reject);
      socket.on('close', () => reject(new Error('connection closed')));
      socket.write(encodeEvent('synthesize', { text, voice: { name: 'flite-slt' } }));
    });
  } finally {
    socket.destroy();
  }
}

const secondsOf = (bytes: number, rate: number): number => bytes / 2 / rate;

function assertWholeBreaks(seconds: readonly number[]): void {
  for (const x of seconds) assert.ok(x > MAX_BREAK_SECONDS_PER_REQUEST && x < MAX_BREAK_SECONDS_PER_REQUEST + 3, `${x} s of audio`);
}

describe(`break silence bomb over HTTP: peak RSS within ${RSS_BOUND_MIB} MiB`, () => {
  before(async () => {
    service = await startProcess(env);
    ({ key } = await signedInKey(service.base, mail, 'bomb@example.com', ORIGIN));
    for (let i = 0; i < 2; i++)
      assert.ok((await Promise.all(Array.from({ length: AT_ONCE }, () => speak(WARM)))).every((a) => a.bytes > 0));
  });
  after(async () => {
    await service?.stop();
    service = undefined;
  });

  test('the 42 KB SSML bomb: refused before any silence is made', async () => {
    const { result, riseMib } = await peakRise(() => speak(BOMB));
    process.stdout.write(`# HTTP SSML bomb: ${result.status} ${result.code}, peak RSS +${riseMib} MiB\n`);
    assert.equal(result.status, 400);
    assert.equal(result.code, 'ssml_invalid');
    assert.ok(riseMib < RSS_BOUND_MIB, `peak RSS rose ${riseMib} MiB`);
  });

  test('plain text with 1 999 <break/> tags: held to the same limits as SSML', async () => {
    const { result, riseMib } = await peakRise(() => speak(PLAIN_BOMB));
    process.stdout.write(`# HTTP plain-text bomb: ${result.status} ${result.code}, peak RSS +${riseMib} MiB\n`);
    assert.equal(result.status, 400);
    assert.equal(result.code, 'ssml_invalid');
    assert.ok(riseMib < RSS_BOUND_MIB, `peak RSS rose ${riseMib} MiB`);
  });

  test(`${AT_ONCE} requests at once with ${MAX_BREAK_SECONDS_PER_REQUEST} s of breaks each (the most one may have): all delivered, streamed`, async () => {
    const { result, riseMib } = await peakRise(() => Promise.all(Array.from({ length: AT_ONCE }, () => speak(ALLOWED))));
    const seconds = result.map((r) => secondsOf(r.bytes, 24_000));
    process.stdout.write(
      `# HTTP ${AT_ONCE} x ${MAX_BREAK_SECONDS_PER_REQUEST} s of breaks: ${seconds.map((x) => x.toFixed(1)).join(', ')} s of audio, peak RSS +${riseMib} MiB\n`,
    );
    for (const r of result) assert.equal(r.status, 200);
    assertWholeBreaks(seconds);
    assert.ok(riseMib < RSS_BOUND_MIB, `peak RSS rose ${riseMib} MiB`);
  });
});

describe(`break silence bomb over Wyoming (no authentication): peak RSS within ${RSS_BOUND_MIB} MiB`, () => {
  let port: number;
  before(async () => {
    port = await freePort();
    // The key made over HTTP above is the one Wyoming bills.
    service = await startProcess({ ...env, WYOMING_PORT: String(port), WYOMING_API_KEY: key });
    for (let i = 0; i < 2; i++)
      assert.ok((await Promise.all(Array.from({ length: AT_ONCE }, () => wyoming(port, WARM)))).every((a) => a.bytes > 0));
  });

  test('the 42 KB SSML bomb and the plain-text one: an error event, nothing made', async () => {
    for (const [what, text] of [
      ['SSML', BOMB],
      ['plain text', PLAIN_BOMB],
    ] as const) {
      const { result, riseMib } = await peakRise(() => wyoming(port, text));
      process.stdout.write(`# Wyoming ${what} bomb: ${String(result.error?.data.code)}, peak RSS +${riseMib} MiB\n`);
      assert.equal(result.error?.data.code, 'ssml_invalid', what);
      assert.equal(result.bytes, 0);
      assert.ok(riseMib < RSS_BOUND_MIB, `${what}: peak RSS rose ${riseMib} MiB`);
    }
  });

  test(`${AT_ONCE} connections with ${MAX_BREAK_SECONDS_PER_REQUEST} s of breaks each: delivered whole, streamed`, async () => {
    const { result, riseMib } = await peakRise(() => Promise.all(Array.from({ length: AT_ONCE }, () => wyoming(port, ALLOWED))));
    const seconds = result.map((r) => {
      assert.ok(r.rate, JSON.stringify(r.error?.data));
      return secondsOf(r.bytes, r.rate);
    });
    process.stdout.write(
      `# Wyoming ${AT_ONCE} x ${MAX_BREAK_SECONDS_PER_REQUEST} s of breaks: ${seconds.map((x) => x.toFixed(1)).join(', ')} s of audio, peak RSS +${riseMib} MiB\n`,
    );
    assertWholeBreaks(seconds);
    assert.ok(riseMib < RSS_BOUND_MIB, `peak RSS rose ${riseMib} MiB`);
  });
});
