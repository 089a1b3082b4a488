// The nice values the kernel has for this process's threads (Linux's /proc), to check what threads set themselves.
import { readdirSync, readFileSync } from 'node:fs';

/** The nice value of thread `tid` of this process. */
export function niceOf(tid: number | string): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  // After the command name's closing parenthesis: state is field 3 of the line, nice field 19.
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

/** Threads of this process at `nice`. */
export function threadsAtNice(nice: number): number {
  return readdirSync('/proc/self/task').filter((tid) => niceOf(tid) === nice).length;
}
