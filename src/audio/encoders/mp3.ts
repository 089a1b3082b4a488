import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createEncoder } from 'wasm-media-encoders';
import { WebAssemblyApi } from '../../wasm/web-assembly.ts';
import { buildInfoFrame, countMp3Frames, LAME_ENCODER_DELAY, parseMp3FrameHeader } from './mp3-info-tag.ts';
import { concatBytes, EMPTY, type StreamEncoder } from './types.ts';

type WasmSource = Parameters<typeof createEncoder>[1];

let wasmModule: Promise<WasmSource> | undefined;

type Lame = Awaited<ReturnType<typeof createEncoder<'audio/mpeg'>>>;
type Mp3Rate = 24000 | 22050 | 16000 | 32000 | 44100 | 48000;
/**
 * LAME instances whose stream has ended, already configured for the next one. A new stream otherwise paid
 * before its first audio for instantiating (0.2-10 ms, allocating its memory) and configuring (2 ms, LAME's
 * tables); configure() starts a fresh stream in the same instance, with the same output as a new one.
 */
const idle: Array<{ lame: Lame; rate: Mp3Rate; bitrate: number }> = [];
// Enough for the streams a worker usually has going; a burst beyond it makes new ones, and drops them after.
const MAX_IDLE = 4;

type Mp3Bitrate = Parameters<Lame['configure']>[0] extends { bitrate?: infer B } ? B : never;
const configure = (lame: Lame, sampleRate: Mp3Rate, bitrate: number): void =>
  lame.configure({ channels: 1, sampleRate, bitrate: bitrate as Mp3Bitrate });

async function takeLame(rate: Mp3Rate, bitrate: number): Promise<Lame> {
  const i = idle.findIndex((e) => e.rate === rate && e.bitrate === bitrate);
  if (i >= 0) return idle.splice(i, 1)[0].lame;
  const lame = await createEncoder('audio/mpeg', await lameModule());
  configure(lame, rate, bitrate);
  return lame;
}

/** Readies a finished instance for the next stream, after this one's last bytes have gone out. */
function giveBack(lame: Lame, rate: Mp3Rate, bitrate: number): void {
  if (idle.length >= MAX_IDLE) return;
  setImmediate(() => {
    configure(lame, rate, bitrate);
    if (idle.length < MAX_IDLE) idle.push({ lame, rate, bitrate });
  });
}

/**
 * wasm-media-encoders 0.7.0 builds LAME 3.100 without a quality setting, so lame_init's "quality unset"
 * (-1) becomes LAME's default q=3 in lame_init_params: its noise-shaping loops cost 2-4x the encoding
 * time of q=7 ("fast": psychoacoustics kept, no shaping loops), which at 64 kbps for speech is not heard
 * apart (mp3 encoding was most of the pipeline's time). lame_init_old stores quality and mode together
 * as one i64 constant (mode NOT_SET=4 in the high word, quality -1 in the low one); only that constant
 * changes, to quality 7, with a LEB128 of the same length so no offsets move. The patch applies only to
 * the exact file whose hash and bytes are checked here; any other build runs unpatched, at q=3.
 */
export const LAME_WASM_SHA256 = '85e81719250b9a667b1258143f689dda70e3e57a7e7c29ab0b4cef65c8f6eb9a';
const QUALITY_AT = 0xeda3;
// i64.const 0x4_FFFFFFFF (mode 4, quality -1); i64.store align=4 offset=44 (lame_global_flags.quality)
const QUALITY_DEFAULT = [0x42, 0xff, 0xff, 0xff, 0xff, 0xcf, 0x00, 0x37, 0x02, 0x2c];
// i64.const 0x4_00000007 (mode 4, quality 7), same six-byte LEB128
const QUALITY_FAST = [0x87, 0x80, 0x80, 0x80, 0xc0, 0x00];

let quality: 3 | 7 = 3;
/** The LAME quality this thread's encoders run at: 7 with the checked patch, else LAME's default 3. */
export const lameQuality = (): 3 | 7 => quality;

/** Returns LAME's wasm set to quality 7 when it is the exact known build, else undefined. */
export function patchLameQuality(wasm: Uint8Array): Uint8Array | undefined {
  if (createHash('sha256').update(wasm).digest('hex') !== LAME_WASM_SHA256) return undefined;
  if (!QUALITY_DEFAULT.every((b, i) => wasm[QUALITY_AT + i] === b)) return undefined;
  // A copy, not Buffer.slice (a view): the caller keeps the unpatched bytes to fall back on.
  const patched = new Uint8Array(wasm);
  patched.set(QUALITY_FAST, QUALITY_AT + 1);
  return patched;
}

/** Compiles LAME once per thread; each encoder then only instantiates it. */
function lameModule(): Promise<WasmSource> {
  wasmModule ??= (async () => {
    const path = createRequire(import.meta.url).resolve('wasm-media-encoders/wasm/mp3');
    const bytes = await readFile(path);
    const fast = patchLameQuality(bytes);
    if (fast) {
      try {
        const module = (await WebAssemblyApi.compile(fast)) as WasmSource;
        quality = 7;
        return module;
      } catch {
        // Falls through to the unpatched build: slower, never broken.
      }
    }
    return (await WebAssemblyApi.compile(bytes)) as WasmSource;
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
export async function createMp3Encoder(sampleRate: Mp3Rate, buffered: boolean, bitrateKbps = 64): Promise<StreamEncoder> {
  const enc = await takeLame(sampleRate, bitrateKbps);
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
      giveBack(enc, sampleRate, bitrateKbps);
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
