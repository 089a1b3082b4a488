// Which worker thread a task goes to. A thread renders one piece at a time and interleaves its requests
// between pieces (piece-turns.ts: a request with no audio yet goes first), so a request arriving on a busy thread
// waits for the piece under way and no more. Long readings spread over every thread, except, in a pool with a
// thread beyond the cores (the default), one thread that is kept free of them for short requests (core-yield.ts):
// long readings still have a thread per core. Kept to one thread of two, several long readings at once used one
// core of two (2 000-character requests at half the throughput of a server that spawns flite per request).
// Short tasks go where the fewest long readings run, and long readings never hold so many slots that a
// thread's worth of them is not left for short tasks (a task keeps its slot until it ends, minutes for a long
// reading, so a short request finding every slot taken would wait for one of them to finish).

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

function fewestLongs(threads: readonly Thread[], longs: (t: Thread) => number): number {
  return Math.min(...threads.map(longs));
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
    /**
     * Keep one thread free of long readings (the pool has a thread beyond the cores, see core-yield.ts): a
     * short request there starts at once instead of after the long piece under way, and the long readings
     * still have a thread per core.
     */
    private readonly keepOneForShort = false,
  ) {}

  /** Piscina's loadBalancer: the thread for `task`, or null to keep it queued until one frees up. */
  readonly choose = <W extends Thread>(task: object, threads: W[]): W | null => {
    const placement = this.placementOf(task);
    const withRoom = threads.filter((t) => t.currentUsage < this.maxPerThread);
    const warm = withRoom.filter((t) => this.isWarm(t.id));
    const longs = (t: Thread): number => this.longOn.get(t.id) ?? 0;
    let open = warm.length > 0 ? warm : withRoom;
    // A long reading holds its thread for a minute or more, a warm-up a second or so: rather than share a warm
    // thread with another long reading (both at half speed to the end), it takes a thread still warming. Right
    // after start (/readyz answers once one thread is warm), four 2 000-character readings otherwise all ran
    // on the first warm thread for 13 s while the others stood idle.
    if (placement?.long && warm.length < withRoom.length && fewestLongs(withRoom, longs) < fewestLongs(warm, longs)) open = withRoom;
    if (placement?.long && this.keepOneForShort && threads.length > 1) {
      const threadsWithLongs = threads.filter((t) => longs(t) > 0).length;
      if (threadsWithLongs >= threads.length - 1) open = open.filter((t) => longs(t) > 0);
    }
    // Slots long readings may hold together: all but one thread's worth (counted over all threads).
    const longRoom = (threads.length - 1) * this.maxPerThread;
    if (placement?.long && threads.length > 1 && this.threadOf.size >= longRoom) return null;
    // Everything goes where the fewest long readings run (long readings spread evenly), then to the least busy thread.
    const best = open.reduce<W | null>((a, t) => {
      if (a === null) return t;
      if (longs(t) !== longs(a)) return longs(t) < longs(a) ? t : a;
      return t.currentUsage < a.currentUsage ? t : a;
    }, null);
    if (best && placement?.long) {
      this.longOn.set(best.id, longs(best) + 1);
      this.threadOf.set(placement.id, best.id);
    }
    return best;
  };

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
