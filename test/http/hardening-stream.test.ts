// What an outside security re-test found on the WebSocket stream's input contexts: a context that was never
// flushed spoke 595 sentences in 30 s past a limit of 60 a minute, because an utterance was counted once.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useService } from '../helpers/fixture.ts';
import { StreamClient } from '../helpers/ws-client.ts';

const LIMIT = 8;

describe('input streaming and the rate limit', () => {
  const s = useService({ env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) }, user: 'sentences@example.com' });

  test(`every sentence of a never-flushed context counts: past ${LIMIT} a minute it is refused with rate_limited`, async () => {
    const c = await StreamClient.open(`${s.base.replace('http', 'ws')}/v1/ws/stream?token=${s.key}`, { timeoutMs: 60_000 });
    // The upgrade counted once; then 20 sentences, never flushed, each completed by the next one's start.
    const words = [
      'One',
      'Two',
      'Three',
      'Four',
      'Five',
      'Six',
      'Seven',
      'Eight',
      'Nine',
      'Ten',
      'Eleven',
      'Twelve',
      'Thirteen',
      'Fourteen',
      'Fifteen',
      'Sixteen',
      'Seventeen',
      'Eighteen',
      'Nineteen',
      'Twenty',
      'More',
    ];
    for (const w of words) c.send({ type: 'synthesize', context_id: 'chat', text: `${w}. `, continue: true, voice_id: 'flite-slt' });
    const error = await c.until((m) => m.type === 'error');
    assert.equal(error.code, 'rate_limited');
    assert.equal(error.context_id, 'chat');
    assert.ok((error.retry_after ?? 0) >= 1);
    // What was spoken before the refusal: the sentences the limit allowed (the upgrade took one), no more.
    await new Promise((r) => setTimeout(r, 500));
    const spoken = c.messages.filter((m) => m.type === 'audio').length;
    assert.ok(spoken > 0, 'some sentences were spoken');
    const words0 = c.messages.flatMap((m) => m.words ?? []).map((w) => w.word.replace(/\W/g, ''));
    assert.ok(words0.length <= LIMIT - 1, `${words0.length} sentences spoken: ${words0.join(' ')}`);
    c.close();
  });
});
