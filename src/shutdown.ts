// The one order a node stops in. Each part registers how it stops under a phase when it is built, so a start
// refused half-way stops exactly what it had opened, and nothing is closed twice or while another part still
// uses it (the job runner still writing to the database, a stream still publishing to Redis).

/**
 * In order: the doors stop taking new work (Wyoming, WebSocket streams; Fastify then stops HTTP and lets the
 * requests under way finish), background work stops (the job runner and its queue, voice installs, the
 * VOICES_DIR watch), the worker threads end, then the connections the others shared (Redis, SMTP), and the
 * database last.
 */
export const SHUTDOWN_PHASES = ['doors', 'work', 'workers', 'connections', 'database'] as const;
export type ShutdownPhase = (typeof SHUTDOWN_PHASES)[number];

interface Step {
  name: string;
  stop: () => unknown;
}

export class Shutdown {
  private readonly steps = new Map<ShutdownPhase, Step[]>(SHUTDOWN_PHASES.map((phase) => [phase, []]));
  /** Index of the first phase not yet run. */
  private next = 0;
  private running: Promise<void> = Promise.resolve();

  /** Registers how a part stops; `name` names it in the error of a step that fails. */
  add(phase: ShutdownPhase, name: string, stop: () => unknown): void {
    const steps = this.steps.get(phase);
    if (!steps) throw new Error(`unknown shutdown phase ${phase}`);
    steps.push({ name, stop });
  }

  /**
   * Runs the phases not yet run, up to and including `last`; the steps of one phase run together. A failing step
   * does not keep the others from stopping: the first failure is thrown once every phase has run.
   */
  run(last: ShutdownPhase = 'database'): Promise<void> {
    const through = () => this.runThrough(SHUTDOWN_PHASES.indexOf(last));
    // After a failed run the next one still goes on to the phases that remain.
    this.running = this.running.then(through, through);
    return this.running;
  }

  private async runThrough(last: number): Promise<void> {
    let failure: unknown;
    for (; this.next <= last; this.next++) {
      const steps = this.steps.get(SHUTDOWN_PHASES[this.next]) ?? [];
      const results = await Promise.allSettled(steps.map(async (step) => step.stop()));
      results.forEach((result, i) => {
        if (result.status === 'rejected' && failure === undefined) {
          failure = new Error(
            `shutdown: ${steps[i].name} failed to stop: ${String((result.reason as Error | undefined)?.message ?? result.reason)}`,
            { cause: result.reason },
          );
        }
      });
    }
    if (failure !== undefined) throw failure;
  }
}
