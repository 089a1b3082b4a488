import type { InstallJob } from './types.ts';

/** An install still under way (its progress worth polling), as opposed to one that has ended. */
export function installUnderWay(job: InstallJob): boolean {
  return job.status === 'queued' || job.status === 'waiting' || job.status === 'downloading';
}
