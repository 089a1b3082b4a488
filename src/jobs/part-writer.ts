// Writes an encoding's bytes into the database as they come, in rows of bounded size, and completes the file
// once the encoder knows its counts: a header that goes before everything (MP3 Info frame, WAV header) is
// written last as row 0 with the other rows moved after it, and a header that the encoder wrote first with
// unknown counts (FLAC's STREAMINFO) is patched in place.
import type { EncodeResult } from './encode-protocol.ts';
import type { JobStore } from './job-store.ts';

/** Bytes per stored row: large enough to keep rows few, small enough to read a Range without much waste. */
const ROW_BYTES = 256 * 1024;

export class PartWriter {
  private parts: Uint8Array[] = [];
  private buffered = 0;
  private seq = 1;
  private written = 0;

  constructor(
    private readonly store: JobStore,
    private readonly jobId: string,
    readonly part: string,
    readonly attempt: string,
  ) {}

  readonly write = async (bytes: Uint8Array): Promise<void> => {
    this.parts.push(bytes);
    this.buffered += bytes.length;
    if (this.buffered >= ROW_BYTES) await this.flush();
  };

  private async flush(): Promise<void> {
    if (this.buffered === 0) return;
    const row = new Uint8Array(this.buffered);
    let at = 0;
    for (const p of this.parts) {
      row.set(p, at);
      at += p.length;
    }
    this.parts = [];
    this.buffered = 0;
    await this.store.writeAudio(this.jobId, this.part, this.attempt, this.seq++, this.written, row);
    this.written += row.length;
  }

  /** Completes the file; `withHeader` false keeps only the stream of audio (an MP3 gap spliced into a book). */
  async finish(result: EncodeResult, withHeader = true): Promise<{ bytes: number; head: number }> {
    if (withHeader && result.trailer.length > 0) await this.write(result.trailer);
    await this.flush();
    if (!withHeader) return { bytes: this.written, head: 0 };
    if (result.patch.length > 0) await this.store.patchAudio(this.jobId, this.part, this.attempt, 1, result.patch);
    const head = result.prefix.length;
    if (head > 0) {
      await this.store.shiftAudio(this.jobId, this.part, this.attempt, head);
      await this.store.writeAudio(this.jobId, this.part, this.attempt, 0, 0, result.prefix);
    }
    return { bytes: head + this.written, head };
  }
}
