// A thread sets its own CPU priority, and only its own, where it may lower it and restore it again.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { threadPriority } from '../../src/synth/thread-priority.ts';
import { niceOf } from '../helpers/thread-nice.ts';

/** What the kernel allows this process (the setter exists only where both ways are allowed). */
function mayRestore(): boolean {
  const status = readFileSync('/proc/self/status', 'utf8');
  const caps = BigInt(`0x${/^CapEff:\s*([0-9a-f]+)$/m.exec(status)?.[1] ?? '0'}`);
  const limit = /^Max nice priority\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1] ?? '0';
  return ((caps >> 23n) & 1n) === 1n || limit === 'unlimited' || Number(limit) >= 20;
}

const linux = existsSync('/proc/thread-self');

test(
  'a setter exists exactly where a thread may lower its priority and restore it',
  { skip: !linux && 'no per-thread priorities here' },
  () => {
    assert.equal(threadPriority() !== undefined, mayRestore());
  },
);

test(
  'the setter changes the calling thread’s nice value and restores it',
  { skip: !(linux && mayRestore()) && 'not allowed to restore a priority here' },
  () => {
    const setNice = threadPriority();
    assert.ok(setNice);
    const self = process.pid;
    assert.equal(niceOf(self), 0);
    assert.equal(setNice(10), true);
    assert.equal(niceOf(self), 10, 'the main thread, which called it');
    assert.equal(setNice(0), true);
    assert.equal(niceOf(self), 0, 'restored');
  },
);
