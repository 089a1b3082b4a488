// A clone's fit renders are worker time like any speech: through the real server with one synthesis slot, each
// render waits its turn in the fair queue behind another key's speech (so an upload cannot take a worker ahead of
// everyone waiting), it gives the slot back between renders, and none of the fitting audio is billed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { metricValue } from '../helpers/metrics.ts';
import { useService } from '../helpers/fixture.ts';
import { recordSpeaker, SKIP_NO_SPEAKERS, uploadClone } from './helpers.ts';

const VOICE = 'espeak-en-us-male-1';

// One worker with one slot: every synthesis, and every fit render, waits for the one before it.

const s = useService({ env: { WORKERS: '1', SYNTHESIS_SLOTS_PER_WORKER: '1', CACHE_MB: '0' } });

/** Minutes of speech: far more than the socket buffers hold, so it keeps its slot until it is dropped. */
function longText(tag: string): string {
  return Array.from({ length: 120 }, (_, i) => `Request ${tag} says sentence number ${i + 1} of a long reading.`).join(' ');
}

interface Pending {
  response: Promise<Response>;
  abort: AbortController;
}

function speak(key: string, text: string): Pending {
  const abort = new AbortController();
  const response = fetch(`${s.base}/v1/speak`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text, voice_id: VOICE, format: 'wav' }),
    signal: abort.signal,
  });
  response.catch(() => undefined);
  return { response, abort };
}

/**
 * Polls the scheduler's queue gauge until `n` wait: a state, however long it takes to come. `unless` fails the
 * wait at once when it turns true first (the clone answered without having queued would otherwise wait forever).
 */
async function untilWaiting(n: number, unless: () => string | undefined = () => undefined): Promise<void> {
  while ((await metricValue(s, 'voxsmith_synthesis_waiting')) !== n) {
    const failure = unless();
    if (failure) assert.fail(failure);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface UsageReport {
  days: Array<{ characters: number; requests: number }>;
}

async function billedCharacters(cookie: string): Promise<number> {
  const res = await s.request('/api/usage', { cookie });
  assert.equal(res.status, 200);
  return ((await res.json()) as UsageReport).days.reduce((sum, d) => sum + d.characters, 0);
}

test(
  'a clone upload waits its turn for each fit render behind another key’s speech, and its fit is not billed',
  { skip: SKIP_NO_SPEAKERS },
  async () => {
    const reader = await s.newKey('long-reader@example.com');
    const cloner = await s.newKey('fit-cloner@example.com');
    const sample = recordSpeaker('flite-slt');

    // The reader's long speech takes the only slot; its body stays unread, so it holds the slot until let go.
    const first = speak(reader.key, longText('R1'));
    assert.equal((await first.response).status, 200);

    let cloned: Response | undefined;
    const upload = uploadClone(s, cloner.key, sample, { name: 'Queued clone', language: 'en' }).then((res) => (cloned = res));
    const answered = (): string | undefined =>
      cloned ? `the clone was answered (${cloned.status}) without its fit waiting for the slot` : undefined;
    // The sample's analysis needs no slot; the fit's first render does, and waits in the queue.
    await untilWaiting(1, answered);
    assert.equal(cloned, undefined, 'the clone is not answered while its fit render waits');

    // The reader asks again: queued after the clone's render.
    const second = speak(reader.key, longText('R2'));
    await untilWaiting(2);

    // Letting the first speech go serves the fit render, which gives the slot back when done: the reader's second
    // speech then takes it (and keeps it), and the fit's next render (a clone takes at least two: a fit and a
    // held-out one) waits behind it.
    first.abort.abort();
    assert.equal((await second.response).status, 200);
    await untilWaiting(1, answered);
    assert.equal(cloned, undefined, 'the clone is not answered while its next render waits');

    second.abort.abort();
    const res = await upload;
    assert.equal(res.status, 201, await res.clone().text());
    const { voice } = (await res.json()) as { voice: { id: string; features: { fit: { renders: number } } } };
    assert.ok(voice.features.fit.renders >= 1);

    // The fitting audio (every fit render and the held-out one) is not usage; the clone's own speech is.
    assert.equal(await billedCharacters(cloner.cookie), 0);
    const text = 'The clone speaks now.';
    const spoken = await s.request('/v1/speak', { json: { text, voice_id: voice.id, format: 'wav' }, bearer: cloner.key });
    assert.equal(spoken.status, 200);
    await spoken.arrayBuffer();
    assert.equal(await billedCharacters(cloner.cookie), text.length);
  },
);
