// The job encoder's thread is long work like a long reading: it runs at a lower priority where threads may set
// theirs, or else steps aside while a short request awaits its first audio, and encodes the same bytes either way.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { AudioEncoder, type PcmSource } from '../../src/jobs/audio-encoder.ts';
import { CoreYield, createCoreYield, loweredThreads, pausesSoFar } from '../../src/synth/core-yield.ts';
import { threadPriority } from '../../src/synth/thread-priority.ts';

const SECONDS = 20;
const RATE = 24_000;

/** 16-bit PCM of a 220 Hz tone, a second per piece. */
async function* tone(): PcmSource {
  for (let s = 0; s < SECONDS; s++) {
    const pcm = new Uint8Array(2 * RATE);
    const view = new DataView(pcm.buffer);
    for (let i = 0; i < RATE; i++) view.setInt16(2 * i, Math.round(8000 * Math.sin((2 * Math.PI * 220 * (s * RATE + i)) / RATE)), true);
    yield { pcm };
  }
}

async function encodeAll(encoder: AudioEncoder): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  await encoder.encode('mp3', tone(), async (bytes) => {
    parts.push(bytes);
  });
  return Buffer.concat(parts);
}

const shared = createCoreYield(3, 2);
const plain = new AudioEncoder();
const yielding = new AudioEncoder(1, shared);
after(() => Promise.all([plain.close(), yielding.close()]));

test('an encoding runs at a lower priority (or pauses for a short request while every core is busy), and its bytes do not change', async () => {
  // One synthesis thread with a long reading, and a short request waiting on the thread kept for them.
  const longThread = new CoreYield(shared);
  const shortThread = new CoreYield(shared);
  const longEnded = longThread.longStarted();
  const firstAudio = shortThread.shortStarted();
  let withPauses: Uint8Array;
  // The encoder thread's lowered priority, seen from here while it encodes.
  let lowered = 0;
  const watch = setInterval(() => (lowered = Math.max(lowered, loweredThreads(shared))), 2);
  try {
    withPauses = await encodeAll(yielding);
  } finally {
    clearInterval(watch);
    firstAudio();
    longEnded();
  }
  if (threadPriority()) {
    assert.equal(lowered, 1, 'the encoder thread ran at a lower priority');
    assert.equal(pausesSoFar(shared), 0, 'and did not pause');
    assert.equal(loweredThreads(shared), 0, 'its priority restored when the encoding ended');
  } else {
    assert.ok(pausesSoFar(shared) > 0, 'the encoder thread paused');
  }
  const without = await encodeAll(plain);
  assert.ok(without.length > 10_000);
  assert.deepEqual(withPauses, without);
});
