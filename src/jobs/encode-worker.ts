// The job encoder's thread: a chapter (or a whole book) arrives as the 16-bit PCM its pieces were rendered in and
// leaves as one continuous stream of the job's format, so nothing marks the seams between pieces. Encoding a
// long chapter is seconds of CPU, which must not stall the event loop.
import { createEncoder, FORMATS, OUTPUT_RATE, type StreamEncoder } from '../audio/encoders/index.ts';
import { buildInfoFrame, LAME_ENCODER_DELAY, parseMp3FrameHeader } from '../audio/encoders/mp3-info-tag.ts';
import { concatBytes, EMPTY } from '../audio/encoders/types.ts';
import { wavHeader } from '../audio/encoders/wav.ts';
import { createResampler, type Resampler } from '../audio/resample.ts';
import { workerData } from 'node:worker_threads';
import { CoreYield } from '../synth/core-yield.ts';
import { threadPriority } from '../synth/thread-priority.ts';
import type { EncodeInput, EncodeOutput, EncodeResult, EncodeTask, EncodeWorkerData } from './encode-protocol.ts';

const shared = (workerData as EncodeWorkerData | undefined)?.coreYield;
const coreYield = shared ? new CoreYield(shared, threadPriority()) : undefined;
/**
 * Samples encoded between checks for a short request waiting on the synthesis threads (one second: a few
 * milliseconds of MP3 encoding). A chapter's encoding is long work like a long reading, and steps aside likewise.
 */
const BLOCK = OUTPUT_RATE;

/** Bytes of FLAC's "fLaC" marker, metadata block header and STREAMINFO block. */
const FLAC_STREAMINFO_END = 42;

function toFloat(pcm: Uint8Array): Float32Array {
  const view = new DataView(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  const out = new Float32Array(pcm.byteLength >> 1);
  for (let i = 0; i < out.length; i++) out[i] = view.getInt16(2 * i, true) / 32768;
  return out;
}

/** Sets STREAMINFO's 36-bit total sample count (the streamed encoder leaves it 0, "unknown"). */
function flacWithTotal(head: Uint8Array, total: number): Uint8Array {
  const out = head.slice(0, FLAC_STREAMINFO_END);
  if (out.length < FLAC_STREAMINFO_END || String.fromCharCode(...out.subarray(0, 4)) !== 'fLaC') return EMPTY;
  out[8 + 13] = (out[8 + 13] & 0xf0) | (Math.floor(total / 2 ** 32) & 0x0f);
  new DataView(out.buffer).setUint32(8 + 14, total >>> 0);
  return out;
}

export default async function encode(task: EncodeTask): Promise<EncodeResult> {
  const { format, port } = task;
  const rate = FORMATS[format].sampleRate;
  const wavKind = format === 'wav' ? 'pcm16' : format === 'mulaw' || format === 'alaw' ? format : null;
  // The WAV family is written bare here and gets its header (with the sizes) at the end.
  const encoder: StreamEncoder =
    wavKind === 'pcm16' ? await createEncoder('pcm', { sampleRate: rate }) : await createEncoder(format, { headerless: wavKind !== null });
  const resampler: Resampler | null = rate === OUTPUT_RATE ? null : await createResampler(OUTPUT_RATE, rate);
  let samples = 0;
  let produced = 0;
  let head = new Uint8Array(0);
  const out = (bytes: Uint8Array): void => {
    produced += bytes.length;
    if (head.length < FLAC_STREAMINFO_END && bytes.length > 0) head = Uint8Array.from([...head, ...bytes.subarray(0, FLAC_STREAMINFO_END)]);
    const message: EncodeOutput = { type: 'bytes', bytes };
    port.postMessage(
      message,
      bytes.length > 0 && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? [bytes.buffer as ArrayBuffer] : [],
    );
  };
  const encodeBlock = (x: Float32Array): Uint8Array => encoder.write(resampler ? resampler.process(x) : x);
  const write = (x: Float32Array): Uint8Array => {
    const parts: Uint8Array[] = [];
    for (let at = 0; at < x.length; at += BLOCK) {
      coreYield?.stepAside();
      parts.push(encodeBlock(x.subarray(at, at + BLOCK)));
    }
    return concatBytes(parts);
  };
  const longEnded = coreYield?.longStarted();

  await new Promise<void>((resolve, reject) => {
    // The main side gave up on this encoding (an error, a cancelled job): the thread must not wait for ever.
    port.on('close', () => reject(new Error('the encoding was abandoned')));
    port.on('message', (m: EncodeInput) => {
      try {
        if (m.type === 'pcm') {
          const x = toFloat(m.pcm);
          samples += x.length;
          out(write(x));
        } else if (m.type === 'silence') {
          samples += m.samples;
          out(write(new Float32Array(m.samples)));
        } else {
          const rest = resampler ? encoder.write(resampler.flush()) : EMPTY;
          const tail = encoder.end();
          const last = new Uint8Array(rest.length + tail.length);
          last.set(rest);
          last.set(tail, rest.length);
          out(last);
          resolve();
        }
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  }).finally(() => {
    longEnded?.();
    resampler?.dispose();
    port.close();
  });

  const result: EncodeResult = { prefix: EMPTY, patch: EMPTY, samples, mp3Frames: null, trailer: EMPTY };
  if (format === 'mp3') {
    const header = parseMp3FrameHeader(head, 0);
    if (header) {
      // Constant bitrate, no padding slots at 24 kHz: every frame is the same length.
      const frames = Math.floor(produced / header.length);
      const padding = Math.max(0, frames * header.samplesPerFrame - LAME_ENCODER_DELAY - samples);
      const infoLength = buildInfoFrame(head, { frames, padding, bytes: 0 }).length;
      result.prefix = buildInfoFrame(head, { frames, padding, bytes: infoLength + produced });
      result.mp3Frames = frames;
    } else {
      result.mp3Frames = 0;
    }
  } else if (wavKind !== null) {
    result.prefix = wavHeader(wavKind, rate, produced);
    if (produced & 1) result.trailer = new Uint8Array(1);
  } else if (format === 'flac') {
    result.patch = flacWithTotal(head, Math.round((samples * rate) / OUTPUT_RATE));
  }
  return result;
}
