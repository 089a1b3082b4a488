// Encodes a job's PCM into its format on a thread of its own (encode-worker.ts). The PCM goes over one piece at
// a time and each piece's bytes come back before the next goes, so a book of any length is encoded in bounded
// memory while its bytes are written to the database.
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { SpeechFormat } from '../schemas/speech.ts';
import { siblingModule } from '../sibling-module.ts';
import type { CoreYieldShared } from '../synth/core-yield.ts';
import type { EncodeInput, EncodeOutput, EncodeResult, EncodeTask, EncodeWorkerData } from './encode-protocol.ts';

/** What an encoding reads: PCM (16-bit, 24 kHz) or a stretch of silence. */
export type PcmSource = AsyncIterable<{ pcm: Uint8Array } | { silence: number }>;

export class AudioEncoder {
  private readonly piscina: Piscina<EncodeTask, EncodeResult>;

  /** `coreYield`: the synthesis pool's counts; with them, an encoding steps aside for short requests' first audio. */
  constructor(threads = 1, coreYield?: CoreYieldShared) {
    this.piscina = new Piscina<EncodeTask, EncodeResult>({
      filename: siblingModule(import.meta.url, 'encode-worker'),
      minThreads: 0,
      maxThreads: threads,
      // Each encoding is one long task streaming through its port; a thread encodes one at a time.
      concurrentTasksPerWorker: 1,
      idleTimeout: 60_000,
      atomics: 'disabled',
      workerData: { coreYield } satisfies EncodeWorkerData,
    });
  }

  /** Encodes `source` into `format`, handing each produced block to `sink` in order. */
  async encode(
    format: SpeechFormat,
    source: PcmSource,
    sink: (bytes: Uint8Array) => Promise<void>,
    signal?: AbortSignal,
  ): Promise<EncodeResult> {
    const { port1, port2 } = new MessageChannel();
    const task = this.piscina.run({ format, port: port2 }, { transferList: [port2], signal });
    let failed: unknown;
    task.catch((err: unknown) => {
      failed = err;
      wake?.();
    });
    const outputs: Uint8Array[] = [];
    let wake: (() => void) | undefined;
    port1.on('message', (m: EncodeOutput) => {
      outputs.push(m.bytes);
      wake?.();
    });
    const next = async (): Promise<Uint8Array> => {
      while (outputs.length === 0) {
        if (failed !== undefined) throw failed;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
      return outputs.shift() as Uint8Array;
    };
    const send = async (input: EncodeInput, transfer: ArrayBuffer[] = []): Promise<void> => {
      port1.postMessage(input, transfer);
      const bytes = await next();
      if (bytes.length > 0) await sink(bytes);
    };
    try {
      for await (const item of source) {
        signal?.throwIfAborted();
        if ('pcm' in item) await send({ type: 'pcm', pcm: item.pcm });
        else await send({ type: 'silence', samples: item.silence });
      }
      await send({ type: 'end' });
      return await task;
    } finally {
      port1.close();
      await task.catch(() => undefined);
    }
  }

  close(): Promise<void> {
    return this.piscina.close();
  }
}
