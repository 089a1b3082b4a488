// Which worker thread a task goes to. A thread renders one piece at a time, and piscina's own choice (the
// least busy thread) spread long readings over every thread: a request arriving while long readings ran
// always waited behind a piece of one (measured: key B's first audio ~4x its idle value with key A's three
// long readings going, even with clause-sized pieces). So, with two threads or more, long readings keep off
// one thread, which is left to everything else; they share the others. A long reading still renders many
// times faster than it plays (flite ~50x on one core), so the core it cannot use costs it little.

/** What the balancer knows of a task (piscina hands it the task's queue options). */
export interface Placement {
  /** A long reading (see isLongReading). */
  long: boolean;
  /** The pool's own task number, to release the placement when the task ends. */
  id: number;
}

/** The part of piscina's worker and task that the choice reads. */
interface Thread {
  id: number;
  currentUsage: number;
}

export class ThreadBalancer {
  /** Long readings running on each thread, by thread id. */
  private readonly longOn = new Map<number, number>();
  /** The thread of each running long reading, by task id. */
  private readonly threadOf = new Map<number, number>();

  constructor(
    private readonly maxPerThread: number,
    /** Reads the placement off piscina's task (its queue options). */
    private readonly placementOf: (task: object) => Placement | undefined,
    /**
     * Whether a thread has warmed up. Tasks go to warm threads while one has room: a thread still warming
     * would make its task wait for the rest of the warm-up.
     */
    private readonly isWarm: (threadId: number) => boolean = () => true,
  ) {}

  /** Piscina's loadBalancer: the thread for `task`, or null to keep it queued until one frees up. */
  readonly choose = <W extends Thread>(task: object, threads: W[]): W | null => {
    const placement = this.placementOf(task);
    const withRoom = threads.filter((t) => t.currentUsage < this.maxPerThread);
    const warm = withRoom.filter((t) => this.isWarm(t.id));
    const open = warm.length > 0 ? warm : withRoom;
    const longs = (t: Thread): number => this.longOn.get(t.id) ?? 0;
    let candidates = open;
    if (placement?.long && threads.length > 1) {
      // Never onto the last thread without long readings (counted over all threads, full ones too).
      if (threads.filter((t) => longs(t) === 0).length <= 1) candidates = open.filter((t) => longs(t) > 0);
    }
    // Short tasks go where the fewest long readings are; everything then to the least busy thread.
    const best = candidates.reduce<W | null>((a, t) => {
      if (a === null) return t;
      if (!placement?.long && longs(t) !== longs(a)) return longs(t) < longs(a) ? t : a;
      return t.currentUsage < a.currentUsage ? t : a;
    }, null);
    if (best && placement?.long) {
      this.longOn.set(best.id, longs(best) + 1);
      this.threadOf.set(placement.id, best.id);
    }
    return best;
  };

  /** The task with this id ended (whatever its placement). */
  release(id: number): void {
    const thread = this.threadOf.get(id);
    if (thread === undefined) return;
    this.threadOf.delete(id);
    const n = (this.longOn.get(thread) ?? 1) - 1;
    if (n > 0) this.longOn.set(thread, n);
    else this.longOn.delete(thread);
  }
}
