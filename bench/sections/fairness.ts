// Fair sharing: key B's one-sentence first audio while key A keeps three long (10 000-character) requests
// going, against B's first audio on an idle service. The service runs with the default limits
// (MAX_CONCURRENT_PER_KEY 4); A's requests are read as fast as the driver can, so they never rest.
import { request, speak } from '../http-client.ts';
import type { Section } from '../report.ts';
import { fixed, ms, percentile } from '../stats.ts';
import { PARAGRAPH_2000 } from '../texts.ts';

// Under MAX_TEXT_CHARS (10 000) with the request's own prefix (`slot-round. `) in front: at 10 000 every long
// request was refused as too long, and key B measured an idle service.
const LONG = Array.from({ length: 5 }, () => PARAGRAPH_2000)
  .join(' ')
  .slice(0, 9_900);
const HEAVY = 3;

/** Sentence `n`: a new text each time, so no answer comes from the synthesis cache. */
const sentence = (n: number) => `Please call the front desk when the visitor number ${n} arrives at the gate.`;

async function firstAudio(base: string, key: string, voice: string, n: number): Promise<number> {
  const r = await speak(base, key, { text: sentence(n), voice_id: voice, format: 'pcm' });
  if (r.status !== 200) throw new Error(`key B's request answered ${r.status}: ${r.text()}`);
  return r.ttfbMs;
}

export interface FairnessResult {
  section: Section;
  ratio: number;
}

export async function fairness(base: string, keyA: string, keyB: string, voice: string, runs: number): Promise<FairnessResult> {
  let n = 0;
  await firstAudio(base, keyB, voice, n++); // warm-up
  const idle: number[] = [];
  for (let i = 0; i < runs; i++) idle.push(await firstAudio(base, keyB, voice, n++));

  // Key A: three long requests, each started again as soon as it ends, until B is done measuring.
  let stop = false;
  let heavyDone = 0;
  let heavyErrors = 0;
  const heavy = Array.from({ length: HEAVY }, async (_, slot) => {
    for (let round = 0; !stop; round++) {
      const r = await speak(base, keyA, { text: `${slot}-${round}. ${LONG}`, voice_id: voice, format: 'mp3' });
      if (r.status === 200) heavyDone++;
      else heavyErrors++;
    }
  });
  // Wait until all three are running (the fair queue's gauge counts running syntheses).
  for (let i = 0; i < 200; i++) {
    const metrics = (await request(`${base}/metrics`)).text();
    const running = Number(/^voxsmith_synthesis_running (\S+)$/m.exec(metrics)?.[1] ?? 0);
    if (running >= HEAVY) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  const loaded: number[] = [];
  for (let i = 0; i < runs; i++) loaded.push(await firstAudio(base, keyB, voice, n++));
  stop = true;
  await Promise.all(heavy);

  const ratio = percentile(loaded, 95) / percentile(idle, 95);
  return {
    ratio,
    section: {
      title: "9. Fair sharing: one key's long requests against another key's sentence",
      notes: [
        `Voice ${voice}, default limits (MAX_CONCURRENT_PER_KEY 4). Key B asks for one sentence (a new one each time, so never cached) ${runs} times, `,
        `first on an idle service, then while key A keeps ${HEAVY} requests of 10 000 characters running (each restarted as soon as it ends, read as fast as the driver can).`,
        'First audio = /v1/speak (pcm) time to the first body byte. Target: loaded p95 at most 2 x idle p95.',
        `Key A meanwhile finished ${heavyDone} long requests (${heavyErrors} refused or failed).`,
      ],
      headers: ['key B first audio', 'p50 ms', 'p95 ms', 'max ms'],
      rows: [
        ['idle service', ms(percentile(idle, 50)), ms(percentile(idle, 95)), ms(Math.max(...idle))],
        [`with ${HEAVY} long requests of key A`, ms(percentile(loaded, 50)), ms(percentile(loaded, 95)), ms(Math.max(...loaded))],
        ['ratio loaded / idle', fixed(percentile(loaded, 50) / percentile(idle, 50), 2), fixed(ratio, 2), ''],
      ],
      summary: [["key B sentence first audio p95, with key A's 3 long requests / idle (target ≤ 2)", fixed(ratio, 2)]],
    },
  };
}
