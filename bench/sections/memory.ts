// Section 7: resident memory of the server after a mix of requests: speech in every format, streams,
// voice lists and searches, run by a few concurrent clients.
import { request, speak } from '../http-client.ts';
import { memory, type Memory } from '../proc.ts';
import type { Section } from '../report.ts';
import { fixed } from '../stats.ts';
import { SHORT_SENTENCE, VOICES } from '../texts.ts';
import { StreamClient } from '../ws-client.ts';

type Kind = 'speak' | 'stream' | 'voices' | 'search';

interface MixedOp {
  kind: Kind;
  run(lane: Lane): Promise<boolean>;
}

interface Lane {
  stream?: StreamClient;
}

const FORMATS = ['mp3', 'wav', 'opus', 'flac', 'pcm', 'mulaw'] as const;

function mix(base: string, key: string): MixedOp[] {
  const auth = { authorization: `Bearer ${key}` };
  const ops: MixedOp[] = FORMATS.map((format, i) => ({
    kind: 'speak' as const,
    run: async () => {
      const r = await speak(base, key, { text: SHORT_SENTENCE, voice_id: VOICES[i % VOICES.length], format });
      return r.status === 200 && r.bytes > 0;
    },
  }));
  ops.push({
    kind: 'stream',
    run: async (lane) => {
      lane.stream ??= await StreamClient.open(base, key);
      const r = await lane.stream.synthesize(SHORT_SENTENCE, VOICES[1]);
      return !r.error && r.audioSeconds > 0;
    },
  });
  ops.push({ kind: 'voices', run: async () => (await request(`${base}/api/voices`, { headers: auth })).status === 200 });
  ops.push({ kind: 'voices', run: async () => (await request(`${base}/api/voices?language=en`, { headers: auth })).status === 200 });
  ops.push({
    kind: 'search',
    run: async () => (await request(`${base}/api/voices/search?q=british%20female`, { headers: auth })).status === 200,
  });
  return ops;
}

export interface MemoryResult {
  section: Section;
  after: Memory;
}

export async function mixedMemory(base: string, key: string, pid: number, total: number, concurrency: number): Promise<MemoryResult> {
  const before = memory(pid);
  const ops = mix(base, key);
  const counts = new Map<Kind, { ok: number; failed: number }>();
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      const lane: Lane = {};
      while (next < total) {
        const op = ops[next++ % ops.length];
        const ok = await op.run(lane).catch(() => false);
        const c = counts.get(op.kind) ?? { ok: 0, failed: 0 };
        if (ok) c.ok += 1;
        else c.failed += 1;
        counts.set(op.kind, c);
      }
      await lane.stream?.close();
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const after = memory(pid);
  const mib = (m: number) => fixed(m, 0);
  return {
    after,
    section: {
      summary: [[`server RSS after ${total} mixed requests`, `${fixed(after.rssMiB, 0)} MiB`]],
      title: `7. Server memory after ${total} mixed requests`,
      notes: [
        `${total} requests by ${concurrency} concurrent clients in ${fixed(seconds, 1)} s, in turn: /v1/speak short sentence in ${FORMATS.join(', ')}`,
        '(alternating voices), one WebSocket stream request, GET /api/voices, /api/voices?language=en, /api/voices/search?q=british female.',
        `Requests: ${[...counts].map(([k, c]) => `${k} ${c.ok} ok${c.failed ? ` / ${c.failed} failed` : ''}`).join(', ')}.`,
        'RSS from /proc/<pid>/status (VmRSS; peak = VmHWM); the process includes the synthesis worker threads.',
      ],
      headers: ['when', 'RSS MiB', 'peak RSS MiB'],
      rows: [
        ['service ready, before the mix', mib(before.rssMiB), mib(before.peakRssMiB)],
        [`after ${total} mixed requests`, mib(after.rssMiB), mib(after.peakRssMiB)],
      ],
    },
  };
}
