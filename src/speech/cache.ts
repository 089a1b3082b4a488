// The synthesis cache: finished answers kept whole, so an identical request is served without a worker.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { configure } from 'safe-stable-stringify';
import type { SpeechChunk, SpeechRequest } from '../synth/speech.ts';

/** Sorted keys, so the same request always hashes alike whatever order its fields were written in. */
const stableJson = configure({ deterministic: true });

/** What a cached answer costs beyond its audio: the chunk objects and their timings, roughly. */
const CHUNK_OVERHEAD_BYTES = 64;
const WORD_BYTES = 96;

/** Who a voice belongs to and which one it is: an owned voice is only ever served to its owner. */
export interface CacheVoice {
  id: string;
  owner_id?: string;
}

export interface CacheStats {
  hits: number;
  misses: number;
  bytes: number;
  entries: number;
  maxBytes: number;
}

function sizeOf(chunk: SpeechChunk): number {
  return chunk.bytes.byteLength + CHUNK_OVERHEAD_BYTES + ((chunk.words?.length ?? 0) + (chunk.marks?.length ?? 0)) * WORD_BYTES;
}

/**
 * Bounded LRU of whole syntheses (CACHE_MB), in memory. Memory rather than DATA_DIR: a hit must start within
 * milliseconds and most hits are short, popular lines (previews, prompts) that fit in a few MB; a disk copy
 * would add file I/O to every hit and a second eviction policy for little gain, and a restart only costs
 * one synthesis per line. Each node keeps its own.
 *
 * The key is a hash of the whole resolved worker request (every option that changes the audio travels
 * there, see SpeechRequest) plus the voice's id and owner, so a field added to SpeechRequest keys the cache
 * without touching this file, and one owner's clone never answers another's request.
 */
export class SpeechCache {
  private readonly lru: LRUCache<string, SpeechChunk[]>;
  private hits = 0;
  private misses = 0;

  constructor(readonly maxBytes: number) {
    this.lru = new LRUCache<string, SpeechChunk[]>({
      maxSize: maxBytes,
      // One answer may take at most a quarter of the cache, so a long text cannot flush every short one.
      maxEntrySize: Math.max(1, Math.floor(maxBytes / 4)),
      sizeCalculation: (chunks) =>
        Math.max(
          1,
          chunks.reduce((n, c) => n + sizeOf(c), 0),
        ),
    });
  }

  static keyOf(request: SpeechRequest, voice: CacheVoice): string {
    const text = stableJson({ request, voice: { id: voice.id, owner: voice.owner_id ?? null } });
    return createHash('sha256')
      .update(text ?? '')
      .digest('base64url');
  }

  /** The chunks of an earlier identical synthesis, counted as a hit or a miss. */
  get(key: string): readonly SpeechChunk[] | undefined {
    const found = this.lru.get(key);
    if (found) this.hits++;
    else this.misses++;
    return found;
  }

  /**
   * Collects a synthesis as it streams; `keep()` stores it once it ended in full. Collecting stops as soon
   * as the answer outgrows what one entry may hold, so a long text costs no memory here.
   */
  recorder(key: string): { add(chunk: SpeechChunk): void; keep(): void } {
    let chunks: SpeechChunk[] | null = [];
    let size = 0;
    const limit = Math.floor(this.maxBytes / 4);
    return {
      add: (chunk) => {
        if (!chunks) return;
        size += sizeOf(chunk);
        if (size > limit) chunks = null;
        else chunks.push(chunk);
      },
      keep: () => {
        if (chunks && chunks.length > 0) this.lru.set(key, chunks);
        chunks = null;
      },
    };
  }

  /** Forgets every answer (a voice's model was replaced or removed: its old audio must not be served). */
  clear(): void {
    this.lru.clear();
  }

  stats(): CacheStats {
    return { hits: this.hits, misses: this.misses, bytes: this.lru.calculatedSize, entries: this.lru.size, maxBytes: this.maxBytes };
  }
}
