/** What the player has done so far, for the page to show and the browser tests to read. */
export interface StreamStats {
  chunks: number;
  /** Seconds of audio scheduled. */
  seconds: number;
  /** Chunks that arrived after the previous one had finished playing, so a gap was unavoidable. */
  underruns: number;
}

// The first chunk starts this far ahead of "now" so the scheduling itself never makes it late.
const START_LEAD_S = 0.06;

/**
 * Plays float32 PCM chunks back to back through the Web Audio API. Each chunk becomes a buffer source that
 * starts exactly where the previous one ends (sample-accurate on the context's clock), so no gap opens
 * between chunks that arrive in time. The context runs at the stream's own rate: no per-chunk resampling,
 * which would otherwise leave clicks at chunk edges.
 */
export class StreamPlayer {
  readonly context: AudioContext;
  readonly stats: StreamStats = { chunks: 0, seconds: 0, underruns: 0 };
  private nextTime = 0;
  private readonly sources = new Set<AudioBufferSourceNode>();
  private lastEnded: Promise<void> = Promise.resolve();

  /** Create it inside a click handler: browsers only let a user gesture start audio. */
  constructor(readonly sampleRate = 24_000) {
    this.context = new AudioContext({ sampleRate, latencyHint: 'interactive' });
  }

  async resume(): Promise<void> {
    if (this.context.state === 'suspended') await this.context.resume();
  }

  /** Schedules one chunk; returns the context time at which it will start. */
  push(samples: Float32Array): number {
    if (samples.length === 0) return this.nextTime;
    const buffer = this.context.createBuffer(1, samples.length, this.sampleRate);
    buffer.copyToChannel(samples as Float32Array<ArrayBuffer>, 0);
    const source = this.context.createBufferSource();
    source.buffer = buffer;
    source.connect(this.context.destination);
    const now = this.context.currentTime;
    if (this.stats.chunks === 0) this.nextTime = now + START_LEAD_S;
    else if (this.nextTime < now) {
      this.stats.underruns++;
      this.nextTime = now + 0.02;
    }
    const startAt = this.nextTime;
    source.start(startAt);
    this.nextTime = startAt + buffer.duration;
    this.stats.chunks++;
    this.stats.seconds += buffer.duration;
    this.sources.add(source);
    this.lastEnded = new Promise<void>((resolve) => {
      source.onended = () => {
        this.sources.delete(source);
        resolve();
      };
    });
    return startAt;
  }

  /** Seconds until everything scheduled has played. */
  remaining(): number {
    return Math.max(0, this.nextTime - this.context.currentTime);
  }

  /** Resolves when the last scheduled chunk has finished. */
  drained(): Promise<void> {
    return this.lastEnded;
  }

  async close(): Promise<void> {
    for (const source of this.sources) {
      try {
        source.stop();
      } catch {
        // Already stopped.
      }
    }
    this.sources.clear();
    if (this.context.state !== 'closed') await this.context.close();
  }
}
