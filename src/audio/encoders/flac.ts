import { createRequire } from 'node:module';
import type { StreamMetadata } from 'libflacjs/dist/index.d.ts';
import type LibFlacFactory from 'libflacjs';
import { concatBytes, EMPTY, type StreamEncoder } from './types.ts';

type Flac = ReturnType<typeof LibFlacFactory>;

const BITS = 16;
const COMPRESSION = 5;

let flacPromise: Promise<Flac> | undefined;

/**
 * Loads libflac's wasm build once per thread. Under Node 18+ its loader sees a global fetch, tries to
 * fetch() its .wasm by file path (which fails) and also replaces globalThis.fetch with a wrapper for
 * good; with fetch hidden during the synchronous load it reads the file from disk and leaves fetch alone.
 */
function loadFlac(): Promise<Flac> {
  flacPromise ??= new Promise<Flac>((resolve, reject) => {
    const g = globalThis as { fetch?: typeof fetch };
    const savedFetch = g.fetch;
    let lib: Flac;
    try {
      g.fetch = undefined;
      const factory = createRequire(import.meta.url)('libflacjs') as typeof LibFlacFactory;
      lib = factory('release.wasm');
    } catch (err) {
      reject(err instanceof Error ? err : new Error(String(err)));
      return;
    } finally {
      g.fetch = savedFetch;
    }
    if (lib.isReady()) resolve(lib);
    else lib.on('ready', () => resolve(lib));
  });
  return flacPromise;
}

/** Writes the final counts into the STREAMINFO block, which libFLAC emits first, before they are known. */
function patchStreamInfo(file: Uint8Array, info: StreamMetadata): void {
  const body = 8; // "fLaC" + 4-byte metadata block header
  const isStreamInfo = (file[4] & 0x7f) === 0;
  if (!isStreamInfo || file.length < body + 34) throw new Error('flac output does not start with STREAMINFO');
  const put24 = (at: number, v: number) => {
    file[at] = (v >>> 16) & 0xff;
    file[at + 1] = (v >>> 8) & 0xff;
    file[at + 2] = v & 0xff;
  };
  put24(body + 4, info.min_framesize);
  put24(body + 7, info.max_framesize);
  // total_samples is 36 bits: the low nibble of byte 13, then bytes 14..17.
  const total = info.total_samples;
  file[body + 13] = (file[body + 13] & 0xf0) | (Math.floor(total / 2 ** 32) & 0x0f);
  new DataView(file.buffer, file.byteOffset).setUint32(body + 14, total >>> 0);
  if (/^[0-9a-f]{32}$/i.test(info.md5sum)) {
    for (let i = 0; i < 16; i++) file[body + 18 + i] = parseInt(info.md5sum.slice(2 * i, 2 * i + 2), 16);
  }
}

/**
 * FLAC 16-bit mono. Streamed, STREAMINFO says "total samples unknown" (0, which the format allows);
 * buffered, the whole file is held back and its STREAMINFO completed from libFLAC's final metadata.
 */
export async function createFlacEncoder(sampleRate: number, buffered: boolean): Promise<StreamEncoder> {
  const flac = await loadFlac();
  // Verification doubles the work and only guards against libFLAC bugs; MD5 is computed regardless.
  const id = flac.create_libflac_encoder(sampleRate, 1, BITS, COMPRESSION, 0, false, 0);
  if (!id) throw new Error('libflac: could not create encoder');
  let out: Uint8Array[] = [];
  let finalInfo: StreamMetadata | undefined;
  const status = flac.init_encoder_stream(
    id,
    (data) => {
      out.push(data.slice());
    },
    (info) => {
      finalInfo = info;
    },
  );
  if (status !== 0) {
    flac.FLAC__stream_encoder_delete(id);
    throw new Error(`libflac: encoder init failed (status ${status})`);
  }
  const all: Uint8Array[] = [];
  let ended = false;
  const take = (): Uint8Array => {
    const bytes = concatBytes(out);
    out = [];
    if (!buffered) return bytes;
    all.push(bytes);
    return EMPTY;
  };
  return {
    contentType: 'audio/flac',
    sampleRate,
    write(samples) {
      if (ended) throw new Error('encoder already ended');
      if (samples.length === 0) return take();
      const ints = new Int32Array(samples.length);
      for (let i = 0; i < samples.length; i++) {
        const v = samples[i] * 32767;
        ints[i] = v >= 32767 ? 32767 : v <= -32768 ? -32768 : Math.round(v);
      }
      if (!flac.FLAC__stream_encoder_process_interleaved(id, ints, samples.length)) {
        throw new Error(`libflac: encoding failed (state ${flac.FLAC__stream_encoder_get_state(id)})`);
      }
      return take();
    },
    end() {
      if (ended) throw new Error('encoder already ended');
      ended = true;
      const ok = flac.FLAC__stream_encoder_finish(id);
      flac.FLAC__stream_encoder_delete(id);
      if (!ok) throw new Error('libflac: finishing the stream failed');
      const tail = take();
      if (!buffered) return tail;
      const file = concatBytes(all);
      if (finalInfo) patchStreamInfo(file, finalInfo);
      return file;
    },
  };
}
