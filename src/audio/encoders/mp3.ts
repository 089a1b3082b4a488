import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createEncoder } from 'wasm-media-encoders';
import { WebAssemblyApi } from '../../wasm/web-assembly.ts';
import { buildInfoFrame, countMp3Frames, LAME_ENCODER_DELAY, parseMp3FrameHeader } from './mp3-info-tag.ts';
import { concatBytes, EMPTY, type StreamEncoder } from './types.ts';

const BITRATE_KBPS = 64;

type WasmSource = Parameters<typeof createEncoder>[1];

let wasmModule: Promise<WasmSource> | undefined;

type Lame = Awaited<ReturnType<typeof createEncoder<'audio/mpeg'>>>;
type Mp3Rate = 24000 | 22050 | 16000 | 44100 | 48000;
/**
 * LAME instances whose stream has ended, already configured for the next one. A new stream otherwise paid
 * before its first audio for instantiating (0.2-10 ms, allocating its memory) and configuring (2 ms, LAME's
 * tables); configure() starts a fresh stream in the same instance, with the same output as a new one.
 */
const idle: Array<{ lame: Lame; rate: Mp3Rate }> = [];
// Enough for the streams a worker usually has going; a burst beyond it makes new ones, and drops them after.
const MAX_IDLE = 4;

const configure = (lame: Lame, sampleRate: Mp3Rate): void => lame.configure({ channels: 1, sampleRate, bitrate: BITRATE_KBPS });

async function takeLame(rate: Mp3Rate): Promise<Lame> {
  const i = idle.findIndex((e) => e.rate === rate);
  if (i >= 0) return idle.splice(i, 1)[0].lame;
  const lame = await createEncoder('audio/mpeg', await lameModule());
  configure(lame, rate);
  return lame;
}

/** Readies a finished instance for the next stream, after this one's last bytes have gone out. */
function giveBack(lame: Lame, rate: Mp3Rate): void {
  if (idle.length >= MAX_IDLE) return;
  setImmediate(() => {
    configure(lame, rate);
    if (idle.length < MAX_IDLE) idle.push({ lame, rate });
  });
}

/** Compiles LAME once per thread; each encoder then only instantiates it. */
function lameModule(): Promise<WasmSource> {
  wasmModule ??= (async () => {
    const path = createRequire(import.meta.url).resolve('wasm-media-encoders/wasm/mp3');
    return (await WebAssemblyApi.compile(await readFile(path))) as WasmSource;
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
export async function createMp3Encoder(sampleRate: Mp3Rate, buffered: boolean): Promise<StreamEncoder> {
  const enc = await takeLame(sampleRate);
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
      // Only an instance that finished cleanly is used again (a throw above leaves it behind).
      giveBack(enc, sampleRate);
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
