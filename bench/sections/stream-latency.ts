// Section 3: WebSocket time to first audio chunk, one sentence against a 2 000-character paragraph. The
// paragraph is cancelled once its first chunk is in: only its first chunk is being measured.
import type { Section } from '../report.ts';
import { fixed, ms, percentile } from '../stats.ts';
import { ONE_SENTENCE, PARAGRAPH_2000, VOICES } from '../texts.ts';
import { StreamClient } from '../ws-client.ts';

export interface StreamLatency {
  section: Section;
  /** p50 first chunk of the paragraph / of the sentence, per voice. */
  ratios: Record<string, number>;
}

export async function streamLatency(base: string, key: string, runs: number): Promise<StreamLatency> {
  const rows: string[][] = [];
  const ratios: Record<string, number> = {};
  const p50s: string[] = [];
  for (const voice of VOICES) {
    const client = await StreamClient.open(base, key);
    const short: number[] = [];
    const long: number[] = [];
    let errors = 0;
    for (let run = -1; run < runs; run++) {
      const a = await client.synthesize(ONE_SENTENCE, voice);
      const b = await client.synthesize(PARAGRAPH_2000, voice, true);
      if (run < 0) continue;
      if (a.error || !Number.isFinite(a.firstChunkMs)) errors += 1;
      else short.push(a.firstChunkMs);
      if (b.error || !Number.isFinite(b.firstChunkMs)) errors += 1;
      else long.push(b.firstChunkMs);
    }
    await client.close();
    const ratio = percentile(long, 50) / percentile(short, 50);
    ratios[voice] = ratio;
    p50s.push(`${voice} ${ms(percentile(short, 50))} / ${ms(percentile(long, 50))} ms`);
    rows.push([
      voice,
      ms(percentile(short, 50)),
      ms(percentile(short, 95)),
      ms(percentile(long, 50)),
      ms(percentile(long, 95)),
      fixed(ratio, 2),
      String(errors),
    ]);
  }
  return {
    ratios,
    section: {
      summary: [
        ['WebSocket first chunk p50, 1 sentence / 2 000 chars (target ≤ 30 ms)', p50s.join(', ')],
        ['WebSocket first chunk p50, paragraph / sentence', VOICES.map((v) => `${v} ${fixed(ratios[v], 2)}`).join(', ')],
      ],
      title: '3. WebSocket /v1/ws/stream time to first audio chunk',
      notes: [
        `One connection per voice, ${runs} runs each after one warm-up; time from sending "synthesize" to the first audio message.`,
        'The paragraph starts with the same sentence; ratio = paragraph p50 / sentence p50 (near 1: the first chunk does not wait for the rest).',
      ],
      headers: ['voice', 'sentence p50 ms', 'sentence p95 ms', '2 000 chars p50 ms', '2 000 chars p95 ms', 'ratio', 'errors'],
      rows,
    },
  };
}
