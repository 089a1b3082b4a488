import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { CacheStats } from '../speech/cache.ts';
import type { SchedulerStats } from '../speech/scheduler.ts';
import type { PoolStats } from '../synth/pool.ts';
import type { SpeechChunk } from '../synth/synthesizer.ts';

/** Where a synthesis was asked for: the label that tells the three front doors apart. */
export type SpeechEndpoint =
  'speak' | 'stream' | 'openai' | 'elevenlabs' | 'preview' | 'timestamps' | 'wyoming' | 'jobs' | 'cartesia' | 'deepgram';

export interface SpeechLabels {
  endpoint: SpeechEndpoint;
  engine: string;
  characters: number;
  /** When the request arrived (performance.now()), so first audio includes its wait in the fair queue. */
  startedAt?: number;
}

/** Route label for requests no route matched: one series, not one per probed path. */
const UNMATCHED = 'unmatched';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const FIRST_AUDIO_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 2, 5, 10];
const SYNTHESIS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/**
 * Every number the service exports, in its own registry (several apps in one process, as in tests, must
 * not share counters). Callers report through the small observe methods; gauges read their sources at scrape time.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly latency: Histogram<'method' | 'route' | 'status'>;
  private readonly synthesisRequests: Counter<'endpoint' | 'engine' | 'outcome'>;
  private readonly characters: Counter<'endpoint' | 'engine'>;
  private readonly synthesisSeconds: Histogram<'endpoint' | 'engine'>;
  private readonly firstAudio: Histogram<'endpoint' | 'engine'>;
  private readonly refusals: Counter<'policy'>;
  private readonly jobPieces: Counter<'outcome'>;
  private poolSource: (() => PoolStats) | null = null;
  /** Each door's count of open speech sockets (ours and the vendors'). */
  private readonly streamSources: Array<() => number> = [];
  private schedulerSource: (() => SchedulerStats) | null = null;
  private cacheSource: (() => CacheStats | null) | null = null;

  constructor(options: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: 'voxsmith_http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.latency = new Histogram({
      name: 'voxsmith_http_request_duration_seconds',
      help: 'Time from request to the last byte of the response, by route pattern, method and status',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.synthesisRequests = new Counter({
      name: 'voxsmith_synthesis_requests_total',
      help: 'Syntheses by endpoint, engine and outcome (ok, error, cancelled)',
      labelNames: ['endpoint', 'engine', 'outcome'],
      registers,
    });
    this.characters = new Counter({
      name: 'voxsmith_synthesis_characters_total',
      help: 'Characters of text synthesized to the end, by endpoint and engine',
      labelNames: ['endpoint', 'engine'],
      registers,
    });
    this.synthesisSeconds = new Histogram({
      name: 'voxsmith_synthesis_seconds',
      help: 'Wall-clock seconds from asking for a synthesis to its last chunk, by endpoint and engine',
      labelNames: ['endpoint', 'engine'],
      buckets: SYNTHESIS_BUCKETS,
      registers,
    });
    this.firstAudio = new Histogram({
      name: 'voxsmith_time_to_first_audio_seconds',
      help: 'Seconds from asking for a synthesis to its first audio chunk (queueing included), by endpoint and engine',
      labelNames: ['endpoint', 'engine'],
      buckets: FIRST_AUDIO_BUCKETS,
      registers,
    });
    this.jobPieces = new Counter({
      name: 'voxsmith_job_pieces_total',
      help: 'Pieces of long-form jobs this node rendered: stored, duplicate (another node had stored it first) or failed',
      labelNames: ['outcome'],
      registers,
    });
    this.refusals = new Counter({
      name: 'voxsmith_rate_limited_total',
      help: 'Requests refused by a rate limit, by policy (api, login, login-address, stream-queue, concurrency)',
      labelNames: ['policy'],
      registers,
    });
    // Read when scraped: what the pool, the fair queue, the cache and the streams report now.
    const gauge = (name: string, help: string, read: () => number): void => {
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read());
        },
      });
    };
    // A count kept elsewhere since the start, exposed as a counter.
    const total = (name: string, help: string, read: () => number): void => {
      new Counter({
        name,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    };
    gauge('voxsmith_synthesis_queue_depth', 'Synthesis tasks waiting for a worker', () => this.poolSource?.().queued ?? 0);
    gauge('voxsmith_synthesis_running', 'Synthesis tasks being rendered by a worker now', () => this.poolSource?.().running ?? 0);
    gauge('voxsmith_synthesis_workers', 'Worker threads in the synthesis pool', () => this.poolSource?.().workers ?? 0);
    gauge(
      'voxsmith_synthesis_workers_ready',
      'Worker threads whose engines are loaded and warm (the service is ready from the first; the others warm up in turn)',
      () => this.poolSource?.().readyWorkers ?? 0,
    );
    gauge(
      'voxsmith_synthesis_low_priority_workers',
      'Threads (synthesis workers, the job encoder) that run long work at a lower CPU priority, so short requests come first',
      () => this.poolSource?.().lowPriorityThreads ?? 0,
    );
    total(
      'voxsmith_synthesis_long_pauses_total',
      "Times a long reading's thread paused so a short request's first audio had a core",
      () => this.poolSource?.().longPauses ?? 0,
    );
    gauge(
      'voxsmith_synthesis_slots',
      'Syntheses the fair queue lets run at once (workers x SYNTHESIS_SLOTS_PER_WORKER)',
      () => this.schedulerSource?.().slots ?? 0,
    );
    gauge('voxsmith_synthesis_waiting', 'Syntheses waiting in the fair queue for a free slot', () => this.schedulerSource?.().waiting ?? 0);
    const cache = (): CacheStats | null => this.cacheSource?.() ?? null;
    total('voxsmith_synthesis_cache_hits_total', 'Speech requests answered from the synthesis cache', () => cache()?.hits ?? 0);
    total(
      'voxsmith_synthesis_cache_misses_total',
      'Speech requests the synthesis cache could not answer (rendered by a worker)',
      () => cache()?.misses ?? 0,
    );
    gauge(
      'voxsmith_synthesis_cache_hit_ratio',
      'Hits over lookups of the synthesis cache since the start (0 before the first lookup)',
      () => {
        const c = cache();
        const lookups = (c?.hits ?? 0) + (c?.misses ?? 0);
        return lookups === 0 ? 0 : (c?.hits ?? 0) / lookups;
      },
    );
    gauge('voxsmith_synthesis_cache_bytes', 'Bytes the synthesis cache holds (audio plus timings)', () => cache()?.bytes ?? 0);
    gauge('voxsmith_synthesis_cache_max_bytes', 'The synthesis cache bound (CACHE_MB); 0 when it is off', () => cache()?.maxBytes ?? 0);
    gauge('voxsmith_synthesis_cache_entries', 'Answers the synthesis cache holds', () => cache()?.entries ?? 0);
    gauge(
      'voxsmith_websocket_streams_active',
      'Open speech WebSockets (/v1/ws/stream and the ElevenLabs, Cartesia and Deepgram sockets)',
      () => this.streamSources.reduce((sum, count) => sum + count(), 0),
    );
  }

  /** The worker pool whose queue the gauges report. */
  watchPool(stats: () => PoolStats): void {
    this.poolSource = stats;
  }

  /** The fair queue in front of the pool. */
  watchScheduler(stats: () => SchedulerStats): void {
    this.schedulerSource = stats;
  }

  /** The synthesis cache (null stats when it is off). */
  watchCache(stats: () => CacheStats | null): void {
    this.cacheSource = stats;
  }

  /** A door's open speech sockets (each door keeps its own set; the gauge is their sum). */
  watchStreams(count: () => number): void {
    this.streamSources.push(count);
  }

  observeRequest(method: string, route: string | undefined, status: number, seconds: number): void {
    const labels = { method, route: route ?? UNMATCHED, status: String(status) };
    this.requests.inc(labels);
    this.latency.observe(labels, seconds);
  }

  observeFirstAudio(endpoint: SpeechEndpoint, engine: string, seconds: number): void {
    this.firstAudio.observe({ endpoint, engine }, seconds);
  }

  observeSynthesis(endpoint: SpeechEndpoint, engine: string, characters: number, seconds: number): void {
    this.characters.inc({ endpoint, engine }, characters);
    this.synthesisSeconds.observe({ endpoint, engine }, seconds);
  }

  observeJobPiece(outcome: 'stored' | 'duplicate' | 'failed'): void {
    this.jobPieces.inc({ outcome });
  }

  rateLimited(policy: string): void {
    this.refusals.inc({ policy });
  }

  /**
   * Passes the chunks through unchanged, timing the first audible one and the whole synthesis. Breaking
   * off or throwing still ends the inner iteration (for-await closes it), so cancellation reaches the worker.
   */
  async *meterSpeech(chunks: AsyncIterable<SpeechChunk>, labels: SpeechLabels): AsyncIterable<SpeechChunk> {
    const { endpoint, engine } = labels;
    const started = labels.startedAt ?? performance.now();
    let first = true;
    let outcome: 'ok' | 'error' | 'cancelled' = 'cancelled';
    try {
      for await (const chunk of chunks) {
        if (first && chunk.bytes.length > 0) {
          first = false;
          this.observeFirstAudio(endpoint, engine, (performance.now() - started) / 1000);
        }
        yield chunk;
      }
      outcome = 'ok';
      this.observeSynthesis(endpoint, engine, labels.characters, (performance.now() - started) / 1000);
    } catch (err) {
      outcome = isAbort(err) ? 'cancelled' : 'error';
      throw err;
    } finally {
      this.synthesisRequests.inc({ endpoint, engine, outcome });
    }
  }

  async render(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');
}
