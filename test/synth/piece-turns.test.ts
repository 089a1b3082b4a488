// The order a worker thread's requests render their next piece in: a request with no audio out yet first,
// then the one with the least audio ahead of its listener, then the one that asked first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PieceTurns } from '../../src/synth/piece-turns.ts';

test('turns go to requests that have sent nothing, then to the least audio ahead, then first come', async () => {
  const turns = new PieceTurns();
  const order: string[] = [];
  const ask = (name: string, started: boolean, ahead: number) => turns.take({ started, ahead }).then(() => order.push(name));
  await Promise.all([
    ask('long-reading, 2 s ahead', true, 2),
    ask('long-reading, 0.5 s ahead', true, 0.5),
    ask('new request', false, 0),
    ask('another long reading, 0.5 s ahead', true, 0.5),
    ask('second new request', false, 0),
  ]);
  assert.deepEqual(order, [
    'new request',
    'second new request',
    'long-reading, 0.5 s ahead',
    'another long reading, 0.5 s ahead',
    'long-reading, 2 s ahead',
  ]);
  assert.equal(turns.size, 0);
});

test('a turn tells how many requests without audio still wait behind it', async () => {
  const turns = new PieceTurns();
  const told: [string, number][] = [];
  const ask = (name: string, started: boolean) => turns.take({ started, ahead: 0 }).then((t) => told.push([name, t.newcomersWaiting]));
  await Promise.all([ask('started', true), ask('new 1', false), ask('new 2', false), ask('new 3', false)]);
  assert.deepEqual(told, [
    ['new 1', 2],
    ['new 2', 1],
    ['new 3', 0],
    ['started', 0],
  ]);
});
