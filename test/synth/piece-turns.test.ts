// The order a worker thread's requests render their next piece in: a request with no audio out yet first, then
// the one whose listener's playback (from its first audio, as much as was sent) runs out soonest, then the one
// that asked first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PieceTurns, type Turn } from '../../src/synth/piece-turns.ts';

const NOW = 100_000;

/** A request that went out `ago` seconds before NOW and has sent `sent` seconds of audio. */
const playing = (ago: number, sent: number) => ({ firstAudioAt: NOW - ago * 1000, sentSeconds: sent });
const fresh = { firstAudioAt: undefined, sentSeconds: 0 };

test('turns go to requests with no audio yet, then to the listener whose playback runs out soonest', async () => {
  const turns = new PieceTurns(() => NOW);
  const order: string[] = [];
  const ask = (name: string, need: Parameters<PieceTurns['take']>[0]) => turns.take(need).then(() => order.push(name));
  await Promise.all([
    // Far ahead: 100 s of audio sent in its first 10 s.
    ask('long reading, 90 s left', playing(10, 100)),
    // Has sent more than the next one, but its listener has played almost all of it.
    ask('stream of 60 s, 0.3 s left', playing(59.7, 60)),
    ask('new request', fresh),
    ask('stream of 3 s, 2 s left', playing(1, 3)),
    ask('stream already stalled', playing(20, 19.5)),
    ask('second new request', fresh),
  ]);
  assert.deepEqual(order, [
    'new request',
    'second new request',
    'stream already stalled',
    'stream of 60 s, 0.3 s left',
    'stream of 3 s, 2 s left',
    'long reading, 90 s left',
  ]);
  assert.equal(turns.size, 0);
});

test('requests whose playback runs out at the same moment go in the order they asked', async () => {
  const turns = new PieceTurns(() => NOW);
  const order: number[] = [];
  await Promise.all([1, 2, 3].map((n) => turns.take(playing(5, 6)).then(() => order.push(n))));
  assert.deepEqual(order, [1, 2, 3]);
});

test('a turn tells the least playback left among those waiting (none for one without audio yet)', async () => {
  const turns = new PieceTurns(() => NOW);
  const told: [string, Turn][] = [];
  const ask = (name: string, need: Parameters<PieceTurns['take']>[0]) => turns.take(need).then((t) => told.push([name, t]));
  await Promise.all([ask('2 s left', playing(1, 3)), ask('new 1', fresh), ask('new 2', fresh), ask('5 s left', playing(1, 6))]);
  assert.deepEqual(
    told.map(([name, t]) => [name, t.othersSlack]),
    [
      ['new 1', 0],
      ['new 2', 2],
      ['2 s left', 5],
      ['5 s left', Infinity],
    ],
  );
});

test("a turn tells how long ago a request other than a long reading arrived beside one; a long reading's arrival does not count", async () => {
  let now = NOW;
  const turns = new PieceTurns(() => now);
  assert.equal((await turns.take(playing(1, 3))).sinceShortArrival, Infinity, 'none arrived yet');
  const ended = turns.longStarted();
  await turns.take({ ...fresh, longReading: true });
  assert.equal((await turns.take(playing(1, 3))).sinceShortArrival, Infinity, 'a long reading is not a short request');
  await turns.take(fresh);
  now += 4_000;
  assert.equal((await turns.take({ ...playing(1, 3), longReading: true })).sinceShortArrival, 4);
  ended();
  ended(); // a second call changes nothing
  now += 1_000;
  await turns.take(fresh);
  assert.equal((await turns.take(playing(1, 3))).sinceShortArrival, 5, 'with no long reading under way, an arrival is not counted');
});

test('short requests that arrived while the thread held no long reading do not count for a long reading that starts later', async () => {
  let now = NOW;
  const turns = new PieceTurns(() => now);
  // The thread was the pool's thread for short requests: many arrived.
  for (let i = 0; i < 5; i++) await turns.take(fresh);
  now += 500;
  // Then it took a long reading, and short requests went elsewhere: its sentences need no clause cuts.
  turns.longStarted();
  assert.equal((await turns.take({ ...playing(1, 30), longReading: true })).sinceShortArrival, Infinity);
  await turns.take(fresh);
  now += 2_000;
  assert.equal((await turns.take({ ...playing(1, 30), longReading: true })).sinceShortArrival, 2);
});
