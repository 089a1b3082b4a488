// The order in which one worker thread's requests render their next piece. A thread interleaves its
// requests between pieces, and a piece renders in one synchronous call (~50-200 ms for a flite sentence),
// so without an order a new request waited behind a piece of every other request on its thread: one
// sentence behind three long readings took 9x as long to start. Between pieces the turn goes to the request
// that needs it most: one that has sent no audio yet, then the one with the least audio ahead of its listener.

/** What a request waiting for its turn has done so far. */
export interface TurnNeed {
  /** Whether its first audio has gone out. */
  started: boolean;
  /** Seconds of audio sent and not yet taken by its listener. */
  ahead: number;
}

/** What a request is told when its turn comes. */
export interface Turn {
  /** Requests still waiting for a turn that have sent no audio yet: each waits for this piece too. */
  newcomersWaiting: number;
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

  /** Resolves when it is this request's turn to render a piece. */
  take(need: TurnNeed): Promise<Turn> {
    return new Promise((go) => {
      this.waiting.push({ need, seq: this.seq++, go });
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
      next.go({ newcomersWaiting: this.waiting.filter((w) => !w.need.started).length });
    });
  }
}

/** Whether `a` should render before `b`. */
function before(a: Waiting, b: Waiting): boolean {
  if (a.need.started !== b.need.started) return !a.need.started;
  if (a.need.ahead !== b.need.ahead) return a.need.ahead < b.need.ahead;
  return a.seq < b.seq;
}
