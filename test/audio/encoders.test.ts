import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createEncoder, FORMATS, isEncodeFormat, withKnownWavLength, type EncodeFormat } from '../../src/audio/encoders/index.ts';
import { oggCrc } from '../../src/audio/encoders/ogg.ts';
import { ffmpegDecode, probe, SKIP_NO_FFMPEG, TempDir } from './ffmpeg.ts';
import { rms, semitones, sine, toneFrequency } from './signals.ts';

const tmp = new TempDir();
after(() => tmp.remove());

const FREQ = 220;
const CHUNK = 1234; // an odd size, so chunks never line up with codec frames

interface Encoded {
  bytes: Uint8Array;
  /** Index of the first write() that returned bytes, or -1 if only end() did. */
  firstOutputAt: number;
  writes: number;
  samples: number;
}

async function encodeSine(format: EncodeFormat, seconds: number, buffered: boolean): Promise<Encoded> {
  const enc = await createEncoder(format, { buffered });
  assert.equal(enc.sampleRate, FORMATS[format].sampleRate);
  assert.equal(enc.contentType, FORMATS[format].contentType);
  const x = sine(FREQ, seconds, enc.sampleRate);
  const parts: Uint8Array[] = [];
  let firstOutputAt = -1;
  let writes = 0;
  for (let i = 0; i < x.length; i += CHUNK, writes++) {
    const b = enc.write(x.subarray(i, i + CHUNK));
    if (b.length > 0 && firstOutputAt < 0) firstOutputAt = writes;
    parts.push(b);
  }
  parts.push(enc.end());
  return { bytes: Buffer.concat(parts), firstOutputAt, writes, samples: x.length };
}

/** Lag (in samples) that best aligns y with the ideal sine: 0 means no priming left in or audio lost. */
function alignment(y: Float32Array, rate: number): number {
  let best = -Infinity;
  let bestLag = 0;
  const from = Math.round(0.1 * rate);
  const to = Math.min(y.length, Math.round(1.0 * rate));
  for (let lag = -40; lag <= 40; lag++) {
    let s = 0;
    for (let i = from; i < to; i++) s += y[i] * Math.sin((2 * Math.PI * FREQ * (i + lag)) / rate);
    if (s > best) {
      best = s;
      bestLag = lag;
    }
  }
  return bestLag;
}

function checkTone(y: Float32Array, rate: number, label: string): void {
  const mid = y.subarray(Math.round(y.length * 0.1), Math.round(y.length * 0.9));
  const f = toneFrequency(mid, rate);
  assert.ok(semitones(f, FREQ) < 0.1, `${label}: decoded tone ${f.toFixed(2)} Hz`);
  const level = rms(mid);
  assert.ok(Math.abs(level - 0.5 / Math.SQRT2) < 0.04, `${label}: decoded level ${level.toFixed(3)}`);
}

interface Expect {
  codec: string;
  probeRate: number;
  /** Allowed ffprobe duration error in seconds, beyond the true length (min, max). */
  durationSlack: [number, number] | 'n/a';
  /** Extra decoded samples allowed at the decode rate (min, max). */
  extraSamples: [number, number];
  decodeRate: number;
  aligned: boolean;
}

// ffprobe's MP3 duration counts whole frames, LAME's priming (1105 samples) and end padding included,
// for ffmpeg's own LAME-tagged files too: at 24 kHz that is 60-70 ms over the true length.
const MP3_SLACK: [number, number] = [0.045, 0.075];

function expected(format: EncodeFormat, buffered: boolean): Expect {
  switch (format) {
    case 'wav':
      return { codec: 'pcm_s16le', probeRate: 24000, durationSlack: [0, 0.001], extraSamples: [0, 0], decodeRate: 24000, aligned: true };
    case 'mulaw':
      return { codec: 'pcm_mulaw', probeRate: 8000, durationSlack: [0, 0.001], extraSamples: [0, 0], decodeRate: 8000, aligned: true };
    case 'flac':
      // Streamed FLAC says "total samples unknown"; ffprobe then reports N/A. Buffered has the count.
      return {
        codec: 'flac',
        probeRate: 24000,
        durationSlack: buffered ? [0, 0.001] : 'n/a',
        extraSamples: [0, 0],
        decodeRate: 24000,
        aligned: true,
      };
    case 'opus':
      // ffprobe (5.1) adds the 6.5 ms pre-skip to the duration; decoders drop it and the end padding.
      return { codec: 'opus', probeRate: 48000, durationSlack: [0, 0.02], extraSamples: [0, 0], decodeRate: 48000, aligned: true };
    case 'mp3':
      return buffered
        ? { codec: 'mp3', probeRate: 24000, durationSlack: MP3_SLACK, extraSamples: [0, 0], decodeRate: 24000, aligned: true }
        : {
            codec: 'mp3',
            probeRate: 24000,
            durationSlack: MP3_SLACK,
            extraSamples: [1105, 1105 + 1152],
            decodeRate: 24000,
            aligned: false,
          };
    default:
      throw new Error(`${format} has no container`);
  }
}

const CONTAINERS: EncodeFormat[] = ['wav', 'mulaw', 'flac', 'opus', 'mp3'];
const HEADER_LENGTH_FORMATS = new Set<EncodeFormat>(['wav', 'mulaw', 'flac', 'mp3']);

for (const format of CONTAINERS) {
  for (const buffered of HEADER_LENGTH_FORMATS.has(format) ? [false, true] : [false]) {
    for (const seconds of [1.5, 3.2]) {
      const label = `${format}${buffered ? ' (buffered)' : ''} ${seconds} s`;
      test(`${label}: ffprobe codec/rate/duration, ffmpeg decodes the right length and pitch`, { skip: SKIP_NO_FFMPEG }, async () => {
        const e = expected(format, buffered);
        const out = await encodeSine(format, seconds, buffered);
        if (buffered) assert.equal(out.firstOutputAt, -1, 'buffered output only comes from end()');
        else assert.ok(out.firstOutputAt >= 0 && out.firstOutputAt < out.writes / 2, `first bytes at write ${out.firstOutputAt}`);

        const path = tmp.file(`${format}-${buffered ? 'b' : 's'}-${seconds}.${FORMATS[format].extension}`, out.bytes);
        const p = probe(path);
        assert.equal(p.codec, e.codec);
        assert.equal(p.sampleRate, e.probeRate);
        assert.equal(p.channels, 1);
        if (e.durationSlack === 'n/a') {
          assert.equal(p.duration, undefined, 'streamed flac: ffprobe has no duration (total_samples = 0)');
        } else {
          assert.ok(p.duration !== undefined, 'ffprobe reports a duration');
          const over = p.duration - seconds;
          assert.ok(over >= e.durationSlack[0] - 1e-6 && over <= e.durationSlack[1], `ffprobe duration ${p.duration}`);
        }

        const y = ffmpegDecode(path);
        const n = Math.round(seconds * e.decodeRate);
        const extra = y.length - n;
        assert.ok(extra >= e.extraSamples[0] && extra <= e.extraSamples[1], `decoded ${y.length} samples for ${n}`);
        checkTone(e.aligned ? y : y.subarray(1105), e.decodeRate, label);
        if (e.aligned) assert.ok(Math.abs(alignment(y, e.decodeRate)) <= 1, `${label} is shifted`);
      });
    }
  }
}

test('streamed wav and mu-law carry "unknown" sizes; buffered ones exact sizes', async () => {
  for (const format of ['wav', 'mulaw'] as const) {
    const s = (await encodeSine(format, 0.5, false)).bytes;
    const b = (await encodeSine(format, 0.5, true)).bytes;
    const sv = new DataView(s.buffer, s.byteOffset);
    const bv = new DataView(b.buffer, b.byteOffset);
    assert.equal(sv.getUint32(4, true), 0xffffffff);
    assert.equal(bv.getUint32(4, true), b.length - 8);
    const dataAt = b.length - Math.round(0.5 * FORMATS[format].sampleRate) * (format === 'wav' ? 2 : 1);
    assert.equal(String.fromCharCode(...b.subarray(dataAt - 8, dataAt - 4)), 'data');
    assert.equal(bv.getUint32(dataAt - 4, true), b.length - dataAt);
    assert.equal(bv.getUint16(20, true), format === 'wav' ? 1 : 7);
  }
});

test('ogg opus: valid pages, real pre-skip, EOS last, granule trimmed to the true length', async () => {
  const seconds = 1.3;
  const out = await encodeSine('opus', seconds, false);
  const b = out.bytes;
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const pages: Array<{ flags: number; granule: bigint; seq: number; body: Uint8Array }> = [];
  for (let at = 0; at < b.length;) {
    assert.equal(String.fromCharCode(...b.subarray(at, at + 4)), 'OggS', `capture pattern at ${at}`);
    const nseg = b[at + 26];
    const lacing = b.subarray(at + 27, at + 27 + nseg);
    const bodyLength = lacing.reduce((s, x) => s + x, 0);
    const end = at + 27 + nseg + bodyLength;
    const page = Uint8Array.from(b.subarray(at, end));
    const crc = new DataView(page.buffer).getUint32(22, true);
    page.fill(0, 22, 26);
    assert.equal(oggCrc(page), crc, `crc of page ${pages.length}`);
    pages.push({
      flags: b[at + 5],
      granule: v.getBigInt64(at + 6, true),
      seq: v.getUint32(at + 18, true),
      body: b.subarray(at + 27 + nseg, end),
    });
    at = end;
  }
  assert.ok(pages.length >= 4);
  assert.equal(String.fromCharCode(...pages[0].body.subarray(0, 8)), 'OpusHead');
  assert.equal(String.fromCharCode(...pages[1].body.subarray(0, 8)), 'OpusTags');
  const head = new DataView(pages[0].body.buffer, pages[0].body.byteOffset);
  const preSkip = head.getUint16(10, true);
  assert.ok(preSkip > 0 && preSkip < 960, `pre-skip ${preSkip}`);
  assert.equal(head.getUint32(12, true), 24000);
  pages.forEach((p, i) => {
    assert.equal(p.seq, i);
    assert.equal((p.flags & 0x02) !== 0, i === 0, `BOS only on the first page (page ${i})`);
    assert.equal((p.flags & 0x04) !== 0, i === pages.length - 1, `EOS only on the last page (page ${i})`);
    if (i > 0) assert.ok(p.granule >= pages[i - 1].granule);
  });
  assert.equal(pages[pages.length - 1].granule, BigInt(preSkip + Math.round(seconds * 48000)));
});

test('pcm and f32 are raw little-endian samples, whole samples in every chunk', async () => {
  const x = sine(FREQ, 0.2, 24000);
  const pcm = await createEncoder('pcm');
  const f32 = await createEncoder('f32');
  const pcmParts: Uint8Array[] = [];
  const f32Parts: Uint8Array[] = [];
  for (let i = 0; i < x.length; i += 333) {
    const a = pcm.write(x.subarray(i, i + 333));
    const b = f32.write(x.subarray(i, i + 333));
    assert.equal(a.length % 2, 0);
    assert.equal(b.length % 4, 0);
    assert.ok(a.length > 0 && b.length > 0, 'raw formats stream every chunk');
    pcmParts.push(a);
    f32Parts.push(b);
  }
  assert.equal(pcm.end().length, 0);
  assert.equal(f32.end().length, 0);
  const p = Buffer.concat(pcmParts);
  const f = Buffer.concat(f32Parts);
  assert.equal(p.length, x.length * 2);
  assert.equal(f.length, x.length * 4);
  for (let i = 0; i < x.length; i++) {
    assert.equal(f.readFloatLE(i * 4), x[i]);
    assert.equal(p.readInt16LE(i * 2), Math.round(x[i] * 32767) || 0); // -0 reads back as 0
  }
});

test('raw pcm decodes with ffmpeg as s16le 24 kHz at the right pitch', { skip: SKIP_NO_FFMPEG }, async () => {
  const out = await encodeSine('pcm', 1.5, false);
  const y = ffmpegDecode(tmp.file('raw.pcm', out.bytes), { inputArgs: ['-f', 's16le', '-ar', '24000', '-ac', '1'] });
  assert.equal(y.length, 36000);
  checkTone(y, 24000, 'pcm');
});

test('pcm clips out-of-range samples instead of wrapping', async () => {
  const enc = await createEncoder('pcm');
  const b = Buffer.from(enc.write(Float32Array.of(1.5, -1.5, 1, -1, 0)));
  assert.deepEqual(
    [0, 2, 4, 6, 8].map((o) => b.readInt16LE(o)),
    [32767, -32768, 32767, -32767, 0],
  );
});

test('pcm rounds halves up, in the vector body and the scalar tail alike, and writes NaN as silence', async () => {
  const enc = await createEncoder('pcm');
  // 0.5 * 32767 = 16383.5: up to 16384, and -16383.5 up to -16383 (not to even). 11 samples: 8 in a SIMD block, 3 after.
  const x = Float32Array.of(0.5, -0.5, NaN, 0.25, -0.25, -Infinity, 0.75, 0, 0.5, -0.5, NaN);
  const b = Buffer.from(enc.write(x));
  assert.deepEqual(
    Array.from({ length: x.length }, (_, i) => b.readInt16LE(2 * i)),
    [16384, -16383, 0, 8192, -8192, -32768, 24575, 0, 16384, -16383, 0],
  );
});

test('an encoder with no input still ends with a parseable file', { skip: SKIP_NO_FFMPEG }, async () => {
  for (const format of CONTAINERS) {
    const enc = await createEncoder(format);
    const path = tmp.file(`empty.${format}.${FORMATS[format].extension}`, enc.end());
    const p = probe(path);
    assert.equal(p.codec, expected(format, false).codec);
    assert.ok(ffmpegDecode(path).length <= 1105 + 1152, `${format} empty file decodes to (near) nothing`);
  }
});

test('writing after end() is refused', async () => {
  for (const format of ['mp3', 'opus', 'flac'] as const) {
    const enc = await createEncoder(format);
    enc.end();
    assert.throws(() => enc.write(new Float32Array(10)), /ended/);
  }
});

test('FORMATS lists every format with its content type, rate and extension', () => {
  assert.deepEqual(Object.keys(FORMATS).sort(), ['alaw', 'f32', 'flac', 'mp3', 'mulaw', 'opus', 'pcm', 'wav']);
  assert.equal(FORMATS.mulaw.sampleRate, 8000);
  assert.equal(FORMATS.alaw.sampleRate, 8000);
  assert.equal(FORMATS.alaw.contentType, 'audio/wav');
  assert.equal(FORMATS.opus.contentType, 'audio/ogg');
  assert.ok(isEncodeFormat('flac'));
  assert.ok(!isEncodeFormat('toString'));
  assert.ok(!isEncodeFormat('aac'));
});

test('mp3: an encoder made after another ended (its LAME instance reused) writes the same bytes as the first', async () => {
  const input = sine(440, 2, 24_000, 0.3);
  const encode = async (): Promise<Buffer> => {
    const e = await createEncoder('mp3');
    const parts: Uint8Array[] = [];
    for (let at = 0; at < input.length; at += 6000) parts.push(e.write(input.subarray(at, at + 6000)));
    parts.push(e.end());
    return Buffer.concat(parts);
  };
  const first = await encode();
  // Two at once while instances come back from earlier streams: each still gets a whole stream of its own.
  const [a, b] = await Promise.all([encode(), encode()]);
  await new Promise((r) => setImmediate(r));
  const again = await encode();
  assert.ok(first.length > 1000);
  for (const out of [a, b, again]) assert.ok(out.equals(first), 'same input, same bytes');
});

test('a streamed wav or mu-law file whose length is known gets its real sizes; other bytes are left alone', async () => {
  for (const format of ['wav', 'mulaw'] as const) {
    const streamed = (await encodeSine(format, 0.5, false)).bytes;
    const buffered = (await encodeSine(format, 0.5, true)).bytes;
    const parts = [streamed.subarray(0, 100), streamed.subarray(100)];
    const fixed = Buffer.concat(withKnownWavLength(parts));
    const v = new DataView(fixed.buffer, fixed.byteOffset);
    assert.equal(v.getUint32(4, true), fixed.length - 8);
    const dataAt = format === 'wav' ? 44 : 46;
    assert.equal(String.fromCharCode(...fixed.subarray(dataAt - 8, dataAt - 4)), 'data');
    assert.equal(v.getUint32(dataAt - 4, true), streamed.length - dataAt);
    // The samples are those of the buffered file, whose header is the only other difference.
    assert.ok(
      Buffer.from(fixed.subarray(dataAt, dataAt + streamed.length - dataAt)).equals(
        Buffer.from(buffered.subarray(buffered.length - (streamed.length - dataAt))),
      ),
    );
    assert.equal(parts[0][4], 0xff, 'the input is not changed');
  }
  const notWav = [new Uint8Array([1, 2, 3])];
  assert.equal(withKnownWavLength(notWav)[0], notWav[0]);
});

test('a buffered wav longer than its bound turns into a stream there: the same samples, the open-ended header', async () => {
  const { createWavEncoder } = await import('../../src/audio/encoders/wav.ts');
  const bound = 48_000; // one second of 16-bit 24 kHz
  const tone = sine(440, 2.5, 24_000);
  const whole = createWavEncoder('pcm16', 24_000, true, bound);
  const out: Uint8Array[] = [];
  let firstBytesAt = -1;
  for (let i = 0; i < tone.length; i += 2400) {
    const b = whole.write(tone.subarray(i, i + 2400));
    if (b.length > 0 && firstBytesAt < 0) firstBytesAt = i;
    out.push(b);
  }
  out.push(whole.end());
  const file = Buffer.concat(out);
  assert.ok(firstBytesAt > 0 && firstBytesAt <= 24_000, `bytes go out once the bound is passed (sample ${firstBytesAt})`);
  assert.equal(file.readUInt32LE(4), 0xffffffff);
  assert.equal(file.length, 44 + tone.length * 2);
  const short = createWavEncoder('pcm16', 24_000, true, bound);
  const small = Buffer.concat([short.write(tone.subarray(0, 12_000)), short.end()]);
  assert.equal(small.readUInt32LE(4), small.length - 8, 'within the bound: whole, with real sizes');
});
