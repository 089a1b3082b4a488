// A request's audio depends on the request alone: the same text in the same espeak voice gives the same bytes
// whatever the service spoke before it, on any voice, and whichever worker thread speaks it. espeak-ng carries
// its synthesis state (the glottal wave's phase, the pitch flutter, a clock-seeded random generator) from one
// call to the next, which once made "Open Mon–Sat." 100 ms shorter after other texts than on a fresh thread.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useService } from '../helpers/fixture.ts';
import { assertStatus } from '../helpers/responses.ts';

// Without the synthesis cache: a repeated request must be synthesized again, not served from the first. Two
// threads, so "whichever thread" is asked too; each warms only the default voice, so espeak's first request runs
// on a fresh engine.

const s = useService({ env: { CACHE_MB: '0', WORKERS: '2' }, user: 'history@example.com' });

async function pcm(text: string, voice_id: string): Promise<Buffer> {
  const res = await s.call('/v1/speak', { json: { text, voice_id, format: 'pcm' } });
  await assertStatus(res, 200);
  return Buffer.from(await res.arrayBuffer());
}

const ESPEAK = 'espeak-en-us-female-1';
const TEXTS = [
  'Open Mon–Sat.',
  'Open Monday to Saturday.',
  'The Boeing 737 took off.',
  'It takes ~10 minutes.',
  'Henry VIII had six wives.',
];

test('espeak audio is the same before and after other requests, on the default voice and on espeak', async () => {
  const first = new Map<string, Buffer>();
  for (const text of TEXTS) first.set(text, await pcm(text, ESPEAK));
  // Other speech on both engines, in another order, then the same requests again.
  for (const text of TEXTS) await pcm(text, 'default');
  await pcm('Guten Tag, wie geht es Ihnen heute?', 'default');
  for (const text of [...TEXTS].reverse()) await pcm(`${text} And one more sentence after it.`, ESPEAK);
  for (const text of [...TEXTS].reverse()) {
    const again = await pcm(text, ESPEAK);
    const before = first.get(text)!;
    assert.ok(again.equals(before), `${text}: ${again.byteLength} bytes now, ${before.byteLength} on first request`);
  }
});
