import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createEncoder as createLame } from 'wasm-media-encoders';
import { createEncoder } from '../../src/audio/encoders/index.ts';
import { lameQuality, patchLameQuality } from '../../src/audio/encoders/mp3.ts';
import { WebAssemblyApi } from '../../src/wasm/web-assembly.ts';
import { ffmpegDecode, SKIP_NO_FFMPEG, TempDir } from './ffmpeg.ts';

const tmp = new TempDir();
after(() => tmp.remove());

const wasm = readFileSync(createRequire(import.meta.url).resolve('wasm-media-encoders/wasm/mp3'));

/** A voiced, gliding, amplitude-modulated harmonic series: closer to speech than a sine for LAME's psychoacoustics. */
function buzz(seconds: number, rate: number): Float32Array {
  const x = new Float32Array(Math.round(seconds * rate));
  let phase = 0;
  for (let i = 0; i < x.length; i++) {
    phase += (2 * Math.PI * (120 + 40 * Math.sin(i / 2500))) / rate;
    let s = 0;
    for (let h = 1; h <= 30; h++) s += Math.sin(h * phase) / h;
    x[i] = 0.15 * s * (0.55 + 0.45 * Math.sin(i / 1800));
  }
  return x;
}

test('the LAME quality patch applies to the exact known build only, and changes nothing but the quality constant', () => {
  const patched = patchLameQuality(wasm);
  assert.ok(patched, 'the installed wasm-media-encoders is the build the patch was made for');
  assert.equal(patched.length, wasm.length);
  const changed = [...patched.keys()].filter((i) => patched[i] !== wasm[i]);
  assert.deepEqual(changed, [0xeda4, 0xeda5, 0xeda6, 0xeda7, 0xeda8]);
  assert.ok(new WebAssemblyApi.Module(patched));
  const other = Uint8Array.from(wasm);
  other[100] ^= 1;
  assert.equal(patchLameQuality(other), undefined);
});

test('mp3 encoders run at LAME quality 7', async () => {
  const e = await createEncoder('mp3');
  e.write(new Float32Array(2400));
  e.end();
  assert.equal(lameQuality(), 7);
});

test("mp3 at quality 7 is as close to the input as LAME's default q=3 (within 1 dB SNR)", { skip: SKIP_NO_FFMPEG }, async () => {
  const rate = 24_000;
  const x = buzz(4, rate);
  const snr = async (bytes: Uint8Array): Promise<number> => {
    const y = ffmpegDecode(tmp.file(`q${bytes.length}-${Math.random()}.mp3`, bytes), { rate });
    // The decoded stream starts with LAME's 1105-sample priming.
    let signal = 0;
    let noise = 0;
    for (let i = 0; i < x.length && i + 1105 < y.length; i++) {
      signal += x[i] ** 2;
      noise += (y[i + 1105] - x[i]) ** 2;
    }
    return 10 * Math.log10(signal / noise);
  };
  const encode = async (module: object): Promise<Uint8Array> => {
    const lame = await createLame('audio/mpeg', module as Parameters<typeof createLame>[1]);
    lame.configure({ channels: 1, sampleRate: rate, bitrate: 64 });
    const parts: Uint8Array[] = [];
    for (let at = 0; at < x.length; at += 4800) parts.push(lame.encode([x.subarray(at, at + 4800)]).slice());
    parts.push(lame.finalize().slice());
    return Buffer.concat(parts);
  };
  const q3 = await snr(await encode(await WebAssemblyApi.compile(wasm)));
  const patched = patchLameQuality(wasm);
  assert.ok(patched);
  const q7 = await snr(await encode(await WebAssemblyApi.compile(patched)));
  assert.ok(q3 > 10, `q=3 SNR ${q3.toFixed(1)} dB`);
  assert.ok(q7 > q3 - 1, `q=7 SNR ${q7.toFixed(1)} dB vs q=3 ${q3.toFixed(1)} dB`);
});
