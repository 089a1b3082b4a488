// The order in which one worker thread's requests render their next piece. A thread interleaves its
// requests between pieces, and a piece renders in one synchronous call (~50-200 ms for a flite sentence),
// so without an order a new request waited behind a piece of every other request on its thread: one
// sentence behind three long readings took 9x as long to start. Between pieces the turn goes to the request
// whose listener runs out of audio soonest: one that has sent no audio yet first, then the one whose playback
// (from its first audio, as much as has been sent) ends earliest. Ordering by audio not yet taken instead let a
// listener that had taken everything it was sent (its playback nearly over) wait behind one with less in its
// socket but far more still to play: at 64 streams a third of them stalled while the CPU had room.

/** What a request waiting for its turn has done so far. */
export interface TurnNeed {
  /** When its first audio went out (performance.now() milliseconds), or undefined before that. */
  firstAudioAt: number | undefined;
  /** Seconds of audio sent so far. */
  sentSeconds: number;
  /** A long reading (long-reading.ts): its arrival does not count as a short request's (Turn.sinceShortArrival). */
  longReading?: boolean;
}

/** What a request is told when its turn comes. */
export interface Turn {
  /**
   * Seconds until the playback of the most pressed request still waiting runs out (0 for one with no audio
   * yet, below 0 for one already stalled); Infinity when none waits. A piece that takes longer than this to
   * render makes that listener wait.
   */
  othersSlack: number;
  /**
   * Seconds since a request other than a long reading last asked for its first turn on this thread while a long
   * reading ran here (Infinity: none yet). Where short requests have been arriving beside long readings, more
   * are likely: one that arrives while a piece renders waits for all of it. Arrivals while the thread held no
   * long reading do not count: in a pool that keeps a thread for short requests, the thread that was kept may
   * take long readings later, and the short requests then go to the thread kept now.
   */
  sinceShortArrival: number;
}

interface Waiting {
  need: TurnNeed;
  seq: number;
  go: (turn: Turn) => void;
}

export class PieceTurns {
  private waiting: Waiting[] = [];
  private seq = 0;
  private scheduled = false;
  private lastShortArrival = -Infinity;
  /** Long readings under way on this thread (longStarted). */
  private longReadings = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** A long reading started on this thread; call the result when it has ended. */
  longStarted(): () => void {
    this.longReadings++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.longReadings--;
    };
  }

  /** Resolves when it is this request's turn to render a piece. */
  take(need: TurnNeed): Promise<Turn> {
    if (need.firstAudioAt === undefined && need.longReading !== true && this.longReadings > 0) this.lastShortArrival = this.now();
    return new Promise((go) => {
      this.waiting.push({ need: { ...need }, seq: this.seq++, go });
      this.schedule();
    });
  }

  /** How many requests wait for a turn. */
  get size(): number {
    return this.waiting.length;
  }

  // One grant per turn of the event loop: the granted request renders its piece before the next grant, and
  // the acks and cancels that arrived meanwhile are read in between.
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const next = this.waiting.reduce((best, w) => (before(w, best) ? w : best));
      this.waiting.splice(this.waiting.indexOf(next), 1);
      if (this.waiting.length > 0) this.schedule();
      const now = this.now();
      next.go({
        othersSlack: Math.min(Infinity, ...this.waiting.map((w) => slack(w.need, now))),
        sinceShortArrival: (now - this.lastShortArrival) / 1000,
      });
    });
  }
}

/** When the request's listener runs out of audio (ms on the performance.now() clock); -Infinity before its first audio. */
function runsOut(need: TurnNeed): number {
  return need.firstAudioAt === undefined ? -Infinity : need.firstAudioAt + need.sentSeconds * 1000;
}

/** Seconds of playback the request's listener has left at `now` (0 before its first audio). */
export function slack(need: TurnNeed, now: number): number {
  return need.firstAudioAt === undefined ? 0 : (runsOut(need) - now) / 1000;
}

/** Whether `a` should render before `b`. */
function before(a: Waiting, b: Waiting): boolean {
  const ra = runsOut(a.need);
  const rb = runsOut(b.need);
  if (ra !== rb) return ra < rb;
  return a.seq < b.seq;
}
