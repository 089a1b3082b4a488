import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createEncoder } from 'wasm-media-encoders';
import { buildInfoFrame, countMp3Frames, LAME_ENCODER_DELAY, parseMp3FrameHeader } from './mp3-info-tag.ts';
import { concatBytes, EMPTY, type StreamEncoder } from './types.ts';

const BITRATE_KBPS = 64;

type WasmSource = Parameters<typeof createEncoder>[1];
// The project's lib settings carry no WebAssembly typings; this is the one call needed.
const wasmApi = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<object> } }).WebAssembly;

let wasmModule: Promise<WasmSource> | undefined;

/** Compiles LAME once per thread; each encoder then only instantiates it. */
function lameModule(): Promise<WasmSource> {
  wasmModule ??= (async () => {
    const path = createRequire(import.meta.url).resolve('wasm-media-encoders/wasm/mp3');
    return (await wasmApi.compile(await readFile(path))) as WasmSource;
  })();
  return wasmModule;
}

/**
 * Constant-bitrate MP3: with a fixed frame size, players and ffprobe derive the duration from the file
 * size, which stays right for a stream (VBR without a frame count does not). Streamed, the decoded
 * audio keeps LAME's priming (1105 samples incl. the decoder's) and end padding, ~60 ms in all at 24 kHz.
 * Buffered, an Info/LAME tag frame goes first with the frame count, delay and padding, so decoders that
 * honour it (ffmpeg, mpg123, browsers) return exactly the input length. A streamed Info frame could not
 * carry the count, and ffmpeg only skips a tag frame that has one: it would then play as extra silence.
 */
export async function createMp3Encoder(
  sampleRate: 24000 | 22050 | 16000 | 44100 | 48000,
  buffered: boolean,
): Promise<StreamEncoder> {
  const enc = await createEncoder('audio/mpeg', await lameModule());
  enc.configure({ channels: 1, sampleRate, bitrate: BITRATE_KBPS });
  let ended = false;
  let inputSamples = 0;
  const held: Uint8Array[] = [];
  // The view the encoder returns points into its memory and is overwritten by the next call.
  const emit = (data: Uint8Array): Uint8Array => {
    if (data.length === 0) return EMPTY;
    if (buffered) {
      held.push(data.slice());
      return EMPTY;
    }
    return data.slice();
  };
  return {
    contentType: 'audio/mpeg',
    sampleRate,
    write(samples) {
      if (ended) throw new Error('encoder already ended');
      inputSamples += samples.length;
      return emit(enc.encode([samples]));
    },
    end() {
      if (ended) throw new Error('encoder already ended');
      ended = true;
      const tail = emit(enc.finalize());
      if (!buffered) return tail;
      const audio = concatBytes(held);
      if (audio.length === 0) return audio;
      const frames = countMp3Frames(audio);
      const samplesPerFrame = parseMp3FrameHeader(audio, 0)?.samplesPerFrame ?? 0;
      const padding = Math.max(0, frames * samplesPerFrame - LAME_ENCODER_DELAY - inputSamples);
      const infoLength = buildInfoFrame(audio, { frames, padding, bytes: 0 }).length;
      return concatBytes([buildInfoFrame(audio, { frames, padding, bytes: infoLength + audio.length }), audio]);
    },
  };
}
