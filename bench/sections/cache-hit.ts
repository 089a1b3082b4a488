// The synthesis cache: first byte of an answer served from it, against the same request rendered, plus the
// hit ratio and size the service reports in /metrics.
import { request, speak } from '../http-client.ts';
import type { Section } from '../report.ts';
import { metricValue } from '../service.ts';
import { fixed, ms, percentile } from '../stats.ts';
import { ONE_SENTENCE } from '../texts.ts';

export async function cacheHit(base: string, key: string, voice: string, runs: number): Promise<Section> {
  const rows: string[][] = [];
  let hitP50 = Number.NaN;
  for (const format of ['mp3', 'wav', 'pcm']) {
    const misses: number[] = [];
    const hits: number[] = [];
    for (let i = 0; i < runs; i++) {
      // A new text each round: the first request renders it, the second is the same request again.
      const body = { text: `${format} ${i}. ${ONE_SENTENCE}`, voice_id: voice, format };
      const miss = await speak(base, key, body);
      const hit = await speak(base, key, body);
      if (miss.status !== 200 || hit.status !== 200) throw new Error(`cache bench answered ${miss.status} / ${hit.status}`);
      if (miss.bytes !== hit.bytes) throw new Error('the cached answer differs in length from the rendered one');
      misses.push(miss.ttfbMs);
      hits.push(hit.ttfbMs);
    }
    if (format === 'mp3') hitP50 = percentile(hits, 50);
    rows.push([format, ms(percentile(misses, 50)), ms(percentile(hits, 50)), ms(percentile(hits, 95)), ms(Math.max(...hits))]);
  }
  const metrics = (await request(`${base}/metrics`)).text();
  const ratio = metricValue(metrics, 'voxsmith_synthesis_cache_hit_ratio');
  const bytes = metricValue(metrics, 'voxsmith_synthesis_cache_bytes');
  const entries = metricValue(metrics, 'voxsmith_synthesis_cache_entries');
  return {
    title: '11. Synthesis cache: first byte of a hit',
    notes: [
      `Voice ${voice}, CACHE_MB at its default; ${runs} new sentences per format, each asked twice: once rendered (miss), once from the cache (hit).`,
      'First byte = /v1/speak time to the first body byte, over keep-alive loopback. Target: hit ≤ 5 ms.',
      `/metrics afterwards: voxsmith_synthesis_cache_hit_ratio ${fixed(ratio, 2)}, _bytes ${fixed(bytes / 1024, 0)} KiB in ${entries} entries.`,
    ],
    headers: ['format', 'miss p50 ms', 'hit p50 ms', 'hit p95 ms', 'hit max ms'],
    rows,
    summary: [['cache hit first byte p50 (mp3, target ≤ 5 ms)', `${ms(hitP50)} ms`]],
  };
}
