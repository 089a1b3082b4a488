// A worker thread that takes a long reading lowers its own CPU priority, once and for good: an unprivileged
// process may raise a thread's nice value but never lower it again, so the thread stays a long-reading thread
// (thread-balancer.ts keeps one thread that never takes one). On a busy machine the kernel then gives a core
// to a short request's thread first, and long readings still use every core the short ones leave idle.
// Linux keeps a nice value per thread; elsewhere (no /proc/thread-self) the thread keeps its priority.
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** The nice value of a long-reading thread: a thread at 0 beside it gets ~90 % of a shared core (weights 1024 : 110). */
export const LONG_READING_NICE = 10;

/** The calling thread's kernel id, or undefined where the system does not show it. */
export function currentThreadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/** Lowers the calling thread's priority to LONG_READING_NICE (never raises it); whether it now runs there. */
export function lowerThreadPriority(): boolean {
  const tid = currentThreadId();
  if (tid === undefined) return false;
  try {
    if (getPriority(tid) < LONG_READING_NICE) setPriority(tid, LONG_READING_NICE);
    return getPriority(tid) >= LONG_READING_NICE;
  } catch {
    return false;
  }
}
