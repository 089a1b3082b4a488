// Which worker thread a task goes to. A thread renders one piece at a time and interleaves its requests
// between pieces (piece-turns.ts: a request with no audio yet goes first), so a request arriving on a busy thread
// waits for the piece under way (up to ~150 ms for a long sentence) and no more.
//
// Long readings spread over every thread but one. A thread that takes one lowers its CPU priority for good
// (thread-priority.ts), so the kernel hands a core to the other threads' short requests first, and long readings
// still get every cycle the short ones leave. The pool has a thread more than the cores by default, so long
// readings can still use them all. Measured on 2 cores: kept to one thread of two, several long readings at once
// reached half the throughput of a server that spawns flite per request; spread over both at equal priority,
// a short request's first audio p95 was 2.2-2.5x idle under 4-16 long clients, as it waited for a piece or
// shared a core with one.
//
// Short tasks go where the fewest long readings run, then to the least busy thread, then to one that has never
// taken a long reading.

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
  /** Threads that have taken a long reading (they run at a lower priority from then on). */
  private readonly longThreads = new Set<number>();

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
    const long = placement?.long === true;
    const withRoom = threads.filter((t) => t.currentUsage < this.maxPerThread);
    const warm = withRoom.filter((t) => this.isWarm(t.id));
    let open = warm.length > 0 ? warm : withRoom;
    const longs = (t: Thread): number => this.longOn.get(t.id) ?? 0;
    const marked = (t: Thread): boolean => this.longThreads.has(t.id);
    // One thread never takes a long reading: once all the others have, long readings stay on them.
    if (long && threads.length > 1 && threads.filter(marked).length >= threads.length - 1) open = open.filter(marked);
    const best = open.reduce<W | null>((a, t) => {
      if (a === null) return t;
      if (longs(t) !== longs(a)) return longs(t) < longs(a) ? t : a;
      // A long reading keeps to the threads already lowered where it can; a short task to the least busy
      // thread, and of two as busy, to one at full priority.
      if (long && marked(t) !== marked(a)) return marked(t) ? t : a;
      if (t.currentUsage !== a.currentUsage) return t.currentUsage < a.currentUsage ? t : a;
      return marked(a) && !marked(t) ? t : a;
    }, null);
    if (best && long && placement) {
      this.longOn.set(best.id, longs(best) + 1);
      this.threadOf.set(placement.id, best.id);
      this.longThreads.add(best.id);
    }
    return best;
  };

  /** Threads that have taken a long reading, by thread id. */
  loweredThreads(): ReadonlySet<number> {
    return new Set(this.longThreads);
  }

  /** Long readings running on each thread that has any, by thread id. */
  longReadings(): ReadonlyMap<number, number> {
    return new Map(this.longOn);
  }

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
