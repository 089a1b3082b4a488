// The held-out split: sentences written before the rules were tuned and never tuned on. A sentence is misread
// when an engine's phonemes for the text the service gives it match none of its accepted spoken forms; the
// rate, not each sentence, is what is asserted (at most 5 %, for espeak-ng and for flite, the default voice).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readsAsSpoken } from './engine-reading.ts';
import { HELD_OUT } from './normalize-en.heldout.ts';

const MAX_MISREAD = 0.05;

describe('held-out English sentences', () => {
  test('at least 60 sentences, none of them in the development corpus', async () => {
    const { CORPUS } = await import('./normalize-en.corpus.ts');
    assert.ok(HELD_OUT.length >= 60, `${HELD_OUT.length} sentences`);
    const dev = new Set(CORPUS.map((p) => p.written));
    assert.deepEqual(
      HELD_OUT.filter((h) => dev.has(h.written)).map((h) => h.written),
      [],
    );
  });

  test(`each engine misreads at most ${MAX_MISREAD * 100} % of them`, async () => {
    const misread = { espeak: [] as string[], flite: [] as string[] };
    for (const { written, spoken } of HELD_OUT) {
      const r = await readsAsSpoken(written, spoken);
      if (!r.espeak) misread.espeak.push(`${written} -> ${r.normalized}`);
      if (!r.flite) misread.flite.push(`${written} -> ${r.normalized}`);
    }
    for (const engine of ['espeak', 'flite'] as const) {
      const rate = misread[engine].length / HELD_OUT.length;
      assert.ok(
        rate <= MAX_MISREAD,
        `${engine}: ${misread[engine].length} of ${HELD_OUT.length} misread (${(rate * 100).toFixed(1)} %):\n${misread[engine].join('\n')}`,
      );
    }
  });
});
