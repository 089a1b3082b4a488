// Section 2: POST /v1/speak time to first byte and total time, per voice, format and text length.
import { speak, PCM_BYTES_PER_SECOND } from '../http-client.ts';
import type { Section } from '../report.ts';
import { fixed, ms, percentile } from '../stats.ts';
import { ONE_SENTENCE, PARAGRAPH_2000, VOICES } from '../texts.ts';

interface Cell {
  voice: string;
  format: 'mp3' | 'pcm';
  textName: string;
  text: string;
  ttfb: number[];
  total: number[];
  errors: number;
  pcmBytes: number;
}

export async function speakLatency(base: string, key: string, runs: number): Promise<Section> {
  const cells: Cell[] = [];
  for (const [textName, text] of [
    ['1 sentence', ONE_SENTENCE],
    ['2 000 chars', PARAGRAPH_2000],
  ] as const) {
    for (const voice of VOICES) {
      for (const format of ['mp3', 'pcm'] as const)
        cells.push({ voice, format, textName, text, ttfb: [], total: [], errors: 0, pcmBytes: 0 });
    }
  }
  // Runs go round the cells rather than one cell at a time, so a burst of outside load spreads evenly.
  for (let run = -1; run < runs; run++) {
    for (const cell of cells) {
      const r = await speak(base, key, { text: cell.text, voice_id: cell.voice, format: cell.format }).catch(() => null);
      if (run < 0) continue; // warm-up
      if (!r || r.status !== 200) {
        cell.errors += 1;
        continue;
      }
      cell.ttfb.push(r.ttfbMs);
      cell.total.push(r.totalMs);
      if (cell.format === 'pcm') cell.pcmBytes = r.bytes;
    }
  }
  const audioSeconds = (c: Cell): number =>
    cells.find((o) => o.format === 'pcm' && o.voice === c.voice && o.textName === c.textName)!.pcmBytes / PCM_BYTES_PER_SECOND;
  const p50 = (voice: string, textName: string, format: string, of: 'ttfb' | 'total') => {
    const c = cells.find((o) => o.voice === voice && o.textName === textName && o.format === format);
    return c ? ms(percentile(c[of], 50)) : 'n/a';
  };
  return {
    summary: VOICES.map((v) => [
      `/v1/speak ${v} pcm p50: TTFB 1 sentence, TTFB / total 2 000 chars (TTFB target ≤ 30 ms)`,
      `${p50(v, '1 sentence', 'pcm', 'ttfb')} ms, ${p50(v, '2 000 chars', 'pcm', 'ttfb')} / ${p50(v, '2 000 chars', 'pcm', 'total')} ms`,
    ]),
    title: '2. POST /v1/speak latency',
    notes: [
      `Sequential requests, one at a time, ${runs} runs per row after one warm-up. TTFB = request sent to first body byte;`,
      'total = to the last byte. "x real time" = audio seconds / p50 total seconds.',
    ],
    headers: ['voice', 'text', 'format', 'audio s', 'TTFB p50 ms', 'TTFB p95 ms', 'total p50 ms', 'total p95 ms', 'x real time', 'errors'],
    rows: cells.map((c) => [
      c.voice,
      c.textName,
      c.format,
      fixed(audioSeconds(c), 1),
      ms(percentile(c.ttfb, 50)),
      ms(percentile(c.ttfb, 95)),
      ms(percentile(c.total, 50)),
      ms(percentile(c.total, 95)),
      fixed(audioSeconds(c) / (percentile(c.total, 50) / 1000), 0),
      String(c.errors),
    ]),
  };
}
