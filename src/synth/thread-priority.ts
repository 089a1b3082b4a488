// The calling thread's CPU priority. On Linux, setpriority() on a thread id sets that thread's nice value
// alone (node's os.setPriority passes the id through; the id comes from /proc/thread-self). Raising a nice
// value needs no privilege but lowering it again does (CAP_SYS_NICE, or RLIMIT_NICE of 20 or more), and a
// thread that takes long work only for a while must get its priority back: so threads change theirs only
// where both ways are allowed (threadPriority() says so), and otherwise not at all.
import { readFileSync, readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** Sets the calling thread's nice value; false when it could not. */
export type SetOwnNice = (nice: number) => boolean;

/** CAP_SYS_NICE's bit in the capability sets of /proc/self/status. */
const CAP_SYS_NICE = 23n;

/** The calling thread's kernel id, or undefined where threads have none that setpriority() takes. */
function ownThreadId(): number | undefined {
  try {
    const id = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(id) && id > 0 ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Whether this process may lower a nice value back to 0 (RLIMIT_NICE's soft limit is the ceiling 20 - limit). */
function mayRestore(): boolean {
  try {
    const caps = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (caps && (BigInt(`0x${caps[1]}`) >> CAP_SYS_NICE) & 1n) return true;
    const limit = /^Max nice priority\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return limit !== null && (limit[1] === 'unlimited' || Number(limit[1]) >= 20);
  } catch {
    return false;
  }
}

/**
 * A setter of the calling thread's nice value, or undefined where a thread cannot both lower and restore its
 * priority (not Linux, or not allowed to lower a nice value again).
 */
export function threadPriority(): SetOwnNice | undefined {
  const tid = ownThreadId();
  if (tid === undefined || !mayRestore()) return undefined;
  return (nice) => {
    try {
      setPriority(tid, nice);
      return getPriority(tid) === nice;
    } catch {
      return false;
    }
  };
}
