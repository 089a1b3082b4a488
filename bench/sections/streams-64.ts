// 64 WebSocket streams at once, all sent the same moment: every one must get its first audio within 1 s
// and play faster than real time (wall time from "synthesize" to "done" below the audio's length).
import type { Section } from '../report.ts';
import { fixed, ms, percentile } from '../stats.ts';
import { PARAGRAPH_RAMP } from '../texts.ts';
import { openStreams, speakOnAll } from '../ws-client.ts';

const FIRST_AUDIO_TARGET_MS = 1000;

export interface StreamsAtOnce {
  section: Section;
  passed: boolean;
}

export async function streamsAtOnce(base: string, key: string, voice: string, streams: number): Promise<StreamsAtOnce> {
  const clients = await openStreams(base, key, streams);
  // A different paragraph per stream (its number in front), so none can come from the synthesis cache.
  const results = await speakOnAll(clients, (i) => `Stream ${i + 1}. ${PARAGRAPH_RAMP}`, voice);
  const ok = results.filter((r) => !r.error && r.audioSeconds > 0);
  const firsts = ok.map((r) => r.firstChunkMs);
  const rtf = ok.map((r) => r.totalMs / 1000 / r.audioSeconds);
  const inTime = firsts.filter((f) => f <= FIRST_AUDIO_TARGET_MS).length;
  const faster = rtf.filter((x) => x < 1).length;
  const passed = ok.length === streams && inTime === streams && faster === streams;
  return {
    passed,
    section: {
      title: `10. ${streams} concurrent streams: first audio within 1 s, faster than real time`,
      notes: [
        `Voice ${voice}; ${streams} WebSocket connections each send a two-sentence paragraph (numbered, so none is cached) at the same moment.`,
        'Stream RTF = wall seconds from "synthesize" to "done" / audio seconds received. Target: every first audio ≤ 1 000 ms and every RTF < 1.',
      ],
      headers: ['streams', 'ok', 'first audio p50 ms', 'p95 ms', 'max ms', 'first ≤ 1 s', 'RTF p50', 'RTF max', 'RTF < 1', 'all pass'],
      rows: [
        [
          String(streams),
          String(ok.length),
          ms(percentile(firsts, 50)),
          ms(percentile(firsts, 95)),
          ms(Math.max(...firsts)),
          String(inTime),
          fixed(percentile(rtf, 50), 2),
          fixed(Math.max(...rtf), 2),
          String(faster),
          passed ? 'yes' : 'no',
        ],
      ],
      summary: [
        [
          `${streams} streams at once: first audio max / RTF max`,
          `${ms(Math.max(...firsts))} ms / ${fixed(Math.max(...rtf), 2)}${passed ? '' : ' (target missed)'}`,
        ],
      ],
    },
  };
}
