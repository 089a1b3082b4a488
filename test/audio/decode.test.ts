import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { AudioDecodeError, decodeUpload, mixToMono, type AudioDecodeErrorKind, type UploadContainer } from '../../src/audio/decode.ts';
import { createEncoder } from '../../src/audio/encoders/index.ts';
import { wavHeader } from '../../src/audio/encoders/wav.ts';
import { sniffContainer } from '../../src/audio/sniff.ts';
import { ffmpegDecode, HAS_FFMPEG, run, SKIP_NO_FFMPEG, TempDir } from './ffmpeg.ts';
import { concatF32, rms, semitones, sine, toneFrequency } from './signals.ts';

const HAS_SOX = spawnSync('sox', ['--version'], { stdio: 'ignore' }).status === 0;
const tmp = new TempDir();
after(() => tmp.remove());

async function rejects(bytes: Uint8Array, kind: AudioDecodeErrorKind, maxSeconds = 60): Promise<void> {
  await assert.rejects(decodeUpload(bytes, { maxSeconds }), (err: unknown) => {
    assert.ok(err instanceof AudioDecodeError, `expected AudioDecodeError, got ${String(err)}`);
    assert.equal(err.kind, kind, err.message);
    return true;
  });
}

interface Fixture {
  name: string;
  container: UploadContainer;
  rate: number;
  seconds: number;
  /** Allowed error on the decoded length; lossy codecs without gapless info may pad a little. */
  slack: number;
  lossless?: boolean;
  bytes?: Uint8Array;
  make: (out: string) => void;
}

const SINE = (rate: number, seconds: number) => ['-f', 'lavfi', '-i', `sine=frequency=220:sample_rate=${rate}:duration=${seconds}`];
const ff = (out: string, input: string[], args: string[]) => run('ffmpeg', ['-v', 'error', '-y', ...input, ...args, out]);

const FIXTURES: Fixture[] = [
  {
    name: 'ffmpeg wav s16 stereo 44.1k',
    container: 'wav',
    rate: 44100,
    seconds: 2.5,
    slack: 0,
    lossless: true,
    make: (o) => ff(o, SINE(44100, 2.5), ['-ac', '2', '-c:a', 'pcm_s16le']),
  },
  {
    name: 'ffmpeg wav float32 22.05k',
    container: 'wav',
    rate: 22050,
    seconds: 2,
    slack: 0,
    lossless: true,
    make: (o) => ff(o, SINE(22050, 2), ['-c:a', 'pcm_f32le']),
  },
  {
    name: 'ffmpeg wav 24-bit 3ch (extensible)',
    container: 'wav',
    rate: 48000,
    seconds: 1.5,
    slack: 0,
    lossless: true,
    make: (o) => ff(o, SINE(48000, 1.5), ['-filter_complex', '[0:a][0:a][0:a]amerge=inputs=3', '-c:a', 'pcm_s24le']),
  },
  {
    name: 'ffmpeg wav u8 11.025k',
    container: 'wav',
    rate: 11025,
    seconds: 2,
    slack: 0,
    lossless: true,
    make: (o) => ff(o, SINE(11025, 2), ['-c:a', 'pcm_u8']),
  },
  {
    name: 'ffmpeg wav mu-law 8k',
    container: 'wav',
    rate: 8000,
    seconds: 2,
    slack: 0,
    lossless: true,
    make: (o) => ff(o, SINE(8000, 2), ['-c:a', 'pcm_mulaw']),
  },
  {
    name: 'ffmpeg wav a-law 8k',
    container: 'wav',
    rate: 8000,
    seconds: 2,
    slack: 0,
    lossless: true,
    make: (o) => ff(o, SINE(8000, 2), ['-c:a', 'pcm_alaw']),
  },
  {
    name: 'ffmpeg mp3 (LAME tag) stereo 44.1k',
    container: 'mp3',
    rate: 44100,
    seconds: 2.5,
    slack: 0,
    make: (o) => ff(o, SINE(44100, 2.5), ['-ac', '2', '-c:a', 'libmp3lame', '-b:a', '96k']),
  },
  {
    name: 'ffmpeg mp3 with ID3 tags 22.05k',
    container: 'mp3',
    rate: 22050,
    seconds: 3,
    slack: 0,
    make: (o) => ff(o, SINE(22050, 3), ['-c:a', 'libmp3lame', '-metadata', 'title=Sample', '-id3v2_version', '3']),
  },
  {
    name: 'ffmpeg ogg opus stereo',
    container: 'ogg-opus',
    rate: 48000,
    seconds: 2.5,
    slack: 0,
    make: (o) => ff(o, SINE(48000, 2.5), ['-ac', '2', '-c:a', 'libopus', '-f', 'ogg']),
  },
  {
    name: 'ffmpeg ogg opus from 16k',
    container: 'ogg-opus',
    rate: 48000,
    seconds: 2,
    slack: 0,
    make: (o) => ff(o, SINE(16000, 2), ['-c:a', 'libopus', '-f', 'ogg']),
  },
  {
    name: 'ffmpeg ogg vorbis 44.1k',
    container: 'ogg-vorbis',
    rate: 44100,
    seconds: 2.5,
    slack: 0,
    make: (o) => ff(o, SINE(44100, 2.5), ['-c:a', 'libvorbis', '-f', 'ogg']),
  },
  {
    name: 'ffmpeg flac stereo 44.1k',
    container: 'flac',
    rate: 44100,
    seconds: 2.5,
    slack: 0,
    lossless: true,
    make: (o) => ff(o, SINE(44100, 2.5), ['-ac', '2', '-c:a', 'flac']),
  },
];
if (HAS_SOX) {
  FIXTURES.push(
    {
      name: 'sox wav 24-bit 16k',
      container: 'wav',
      rate: 16000,
      seconds: 2,
      slack: 0,
      lossless: true,
      make: (o) => run('sox', ['-n', '-r', '16000', '-b', '24', o, 'synth', '2', 'sine', '220']),
    },
    {
      name: 'sox flac 24-bit 32k stereo',
      container: 'flac',
      rate: 32000,
      seconds: 2,
      slack: 0,
      lossless: true,
      make: (o) => run('sox', ['-n', '-r', '32000', '-b', '24', '-c', '2', o, 'synth', '2', 'sine', '220']),
    },
    {
      name: 'sox ogg vorbis 16k',
      container: 'ogg-vorbis',
      rate: 16000,
      seconds: 2,
      slack: 0,
      make: (o) => run('sox', ['-n', '-r', '16000', o, 'synth', '2', 'sine', '220']),
    },
  );
}
const EXT: Record<UploadContainer, string> = { wav: 'wav', mp3: 'mp3', 'ogg-opus': 'opus', 'ogg-vorbis': 'ogg', flac: 'flac' };

before(() => {
  if (!HAS_FFMPEG) return;
  FIXTURES.forEach((f, i) => {
    const path = `${tmp.path}/fixture-${i}.${EXT[f.container]}`;
    f.make(path);
    f.bytes = readFileSync(path);
  });
});

for (const f of FIXTURES) {
  test(`decodes ${f.name}: container, rate, length, pitch`, { skip: SKIP_NO_FFMPEG }, async () => {
    assert.ok(f.bytes);
    const d = await decodeUpload(f.bytes, { maxSeconds: 30 });
    assert.equal(d.container, f.container);
    assert.equal(d.sampleRate, f.rate);
    const n = Math.round(f.seconds * f.rate);
    assert.ok(Math.abs(d.samples.length - n) <= f.slack, `${d.samples.length} samples, expected ${n}`);
    assert.equal(d.seconds, d.samples.length / d.sampleRate);
    const mid = d.samples.subarray(Math.round(n * 0.1), Math.round(n * 0.9));
    const hz = toneFrequency(mid, d.sampleRate);
    assert.ok(semitones(hz, 220) < 0.05, `pitch ${hz}`);
    assert.ok(rms(mid) > 0.02, `level ${rms(mid)}`);
    if (f.lossless) {
      // Channels are identical in these fixtures, so the mono mix must equal ffmpeg's first channel.
      const ref = ffmpegDecode(tmp.file(`ref.${EXT[f.container]}`, f.bytes), { filter: 'pan=mono|c0=c0' });
      assert.equal(ref.length, d.samples.length);
      let worst = 0;
      for (let i = 0; i < ref.length; i++) worst = Math.max(worst, Math.abs(ref[i] - d.samples[i]));
      assert.ok(worst < 1e-4, `differs from ffmpeg's decode by ${worst}`);
    }
  });
}

test('the declared file name or type plays no part: detection is by content', { skip: SKIP_NO_FFMPEG }, async () => {
  const flac = FIXTURES.find((f) => f.container === 'flac')?.bytes;
  assert.ok(flac);
  const path = tmp.file('really-flac.mp3', flac);
  assert.equal((await decodeUpload(readFileSync(path), { maxSeconds: 30 })).container, 'flac');
});

test("round-trips the service's own encoders (buffered mp3 and opus come back at the exact length)", async () => {
  for (const [format, container, rate] of [
    ['mp3', 'mp3', 24000],
    ['opus', 'ogg-opus', 48000],
    ['flac', 'flac', 24000],
    ['wav', 'wav', 24000],
    ['mulaw', 'wav', 8000],
  ] as const) {
    for (const buffered of [false, true]) {
      const enc = await createEncoder(format, { buffered });
      const x = sine(220, 1.5, enc.sampleRate);
      const bytes = Buffer.concat([enc.write(x.subarray(0, 10000)), enc.write(x.subarray(10000)), enc.end()]);
      const d = await decodeUpload(bytes, { maxSeconds: 10 });
      assert.equal(d.container, container);
      assert.equal(d.sampleRate, rate);
      const exact = !(format === 'mp3' && !buffered);
      if (exact) assert.equal(d.samples.length, 1.5 * rate, `${format} buffered=${buffered}`);
      else assert.ok(d.samples.length > 1.5 * rate && d.samples.length <= 1.5 * rate + 1105 + 1152);
      assert.ok(semitones(toneFrequency(d.samples.subarray(2000, -2000), rate), 220) < 0.05);
    }
  }
});

test('rejects text and unknown binary as unsupported', async () => {
  await rejects(new TextEncoder().encode('This is not audio.\nJust a text file with some words in it.\n'), 'unsupported');
  await rejects(readFileSync(new URL(import.meta.url)), 'unsupported');
  const aiffLike = Buffer.concat([Buffer.from('FORM\0\0\0\x20AIFFCOMM'), Buffer.alloc(64)]);
  await rejects(aiffLike, 'unsupported');
  const oggSpeex = Buffer.concat([
    Buffer.from('OggS\0\x02'),
    Buffer.alloc(20),
    Buffer.from([1, 8]),
    Buffer.from('Speex   '),
    Buffer.alloc(80),
  ]);
  await rejects(oggSpeex, 'unsupported');
  const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from('ftypM4A '), Buffer.alloc(64)]);
  await rejects(mp4, 'unsupported');
});

test('a WAV of an unsupported sample format is unsupported, not corrupt', async () => {
  const h = Buffer.from(wavHeader('pcm16', 8000, 400));
  h.writeUInt16LE(0x11, 20); // IMA ADPCM
  await rejects(Buffer.concat([h, Buffer.alloc(400)]), 'unsupported');
});

test('empty inputs are empty', async () => {
  await rejects(new Uint8Array(0), 'empty');
  await rejects(wavHeader('pcm16', 24000, 0), 'empty');
  // An Ogg Opus stream with its two header pages and nothing else.
  const enc = await createEncoder('opus');
  const first = enc.write(new Float32Array(10)); // headers only: less than one frame
  await rejects(first, 'empty');
});

test('truncated files decode what is there; cut inside the headers they are corrupt', { skip: SKIP_NO_FFMPEG }, async () => {
  const cases: Array<[UploadContainer, string[]]> = [
    ['wav', ['-c:a', 'pcm_s16le']],
    ['mp3', ['-c:a', 'libmp3lame']],
    ['ogg-opus', ['-c:a', 'libopus', '-f', 'ogg']],
    ['ogg-vorbis', ['-c:a', 'libvorbis', '-f', 'ogg']],
    ['flac', ['-c:a', 'flac']],
  ];
  for (const [container, args] of cases) {
    const path = `${tmp.path}/long.${EXT[container]}`;
    // Noise-like content keeps lossy files large enough that 60 % of one holds several whole pages/frames.
    ff(path, ['-f', 'lavfi', '-i', 'anoisesrc=r=24000:a=0.3:d=8'], args);
    const whole = readFileSync(path);
    const full = await decodeUpload(whole, { maxSeconds: 30 });
    const cut = await decodeUpload(whole.subarray(0, Math.round(whole.length * 0.6)), { maxSeconds: 30 });
    assert.equal(cut.container, container);
    assert.ok(cut.seconds > 0.3 * full.seconds && cut.seconds < 0.8 * full.seconds, `${container}: ${cut.seconds} s of ${full.seconds} s`);
    await rejects(whole.subarray(0, 40), 'corrupt');
  }
});

test('valid magic followed by garbage is corrupt', { skip: SKIP_NO_FFMPEG }, async () => {
  const noise = Buffer.from(Array.from({ length: 20000 }, (_, i) => (i * 7919 + ((i * i) >> 3)) & 0xff));
  for (const f of FIXTURES.filter((x) => x.container !== 'wav' && x.container !== 'mp3')) {
    assert.ok(f.bytes);
    // Keep the first page / metadata block, replace the rest with junk.
    const keep = f.container === 'flac' ? 42 : 27 + f.bytes[26] + 19;
    await rejects(Buffer.concat([f.bytes.subarray(0, keep), noise]), 'corrupt');
  }
  await rejects(Buffer.concat([Buffer.from('RIFF\0\0\0\0WAVEjunk'), noise.subarray(0, 10)]), 'corrupt');
});

test('a WAV whose header claims hours decodes only what it holds (WAV cannot expand)', async () => {
  const hours = 3 * 3600 * 48000 * 2;
  const header = Buffer.from(wavHeader('pcm16', 48000, hours));
  const bytes = Buffer.concat([header, Buffer.alloc(48000 * 2)]); // one real second
  const decoded = await decodeUpload(bytes, { maxSeconds: 60 });
  assert.equal(decoded.samples.length, 48000);
  // espeak-ng --stdout leaves 0x7ffff000 in both size fields because it cannot seek back.
  const streamed = Buffer.from(wavHeader('pcm16', 22050, 0x7ffff000));
  const spoken = await decodeUpload(Buffer.concat([streamed, Buffer.alloc(22050 * 2 * 4)]), { maxSeconds: 120 });
  assert.equal(spoken.seconds, 4);
  await rejects(Buffer.concat([header, Buffer.alloc(48000 * 2 * 5)]), 'too_long', 3);
});

test('decoding stops at maxSeconds for every container', { skip: SKIP_NO_FFMPEG }, async () => {
  for (const f of FIXTURES.slice(0, 12)) {
    assert.ok(f.bytes);
    await rejects(f.bytes, 'too_long', f.seconds / 2);
    const ok = await decodeUpload(f.bytes, { maxSeconds: f.seconds + 0.1 });
    assert.ok(ok.samples.length > 0);
  }
});

test('a tiny FLAC that expands to an hour of silence is refused as too long', { skip: SKIP_NO_FFMPEG }, async () => {
  const path = `${tmp.path}/bomb.flac`;
  ff(path, ['-f', 'lavfi', '-i', 'anullsrc=r=8000:cl=mono', '-t', '3600'], ['-c:a', 'flac', '-frame_size', '65535']);
  const bytes = readFileSync(path);
  assert.ok(bytes.length < 100_000, `bomb is ${bytes.length} bytes`);
  await rejects(bytes, 'too_long', 30);
});

test('mixToMono averages channels', () => {
  const l = Float32Array.of(1, 0.5, 0);
  const r = Float32Array.of(0, 0.5, -1);
  assert.deepEqual(Array.from(mixToMono([l, r], 3)), [0.5, 0.5, -0.5]);
  const mono = mixToMono([l], 2);
  assert.deepEqual(Array.from(mono), [1, 0.5]);
  mono[0] = 9;
  assert.equal(l[0], 1, 'mono output is a copy');
});

test('sniffContainer recognises magic bytes', () => {
  assert.equal(sniffContainer(Buffer.from('RIFF\0\0\0\0WAVEfmt ')), 'wav');
  assert.equal(sniffContainer(Buffer.from('fLaC\0\0\0\x22')), 'flac');
  assert.equal(sniffContainer(Buffer.concat([Buffer.from('ID3\x04\0\0\0\0\0\x02'), Buffer.alloc(2), Buffer.from('fLaC')])), 'flac');
  assert.equal(sniffContainer(Buffer.from('ID3\x04\0\0\0\0\0\0')), 'mp3');
  assert.equal(sniffContainer(Buffer.from('RIFF\0\0\0\0AVI LIST')), undefined);
  assert.equal(sniffContainer(Buffer.from([0xff, 0xfb, 0x90, 0x64, 1, 2, 3])), 'mp3');
  assert.equal(sniffContainer(Buffer.from([0xff, 0xff, 0xff, 0xff, 1, 2, 3])), undefined);
});

test('silence of a known length decodes to exactly that length (no hidden resampling)', async () => {
  const x = concatF32([new Float32Array(12345)]);
  const bytes = Buffer.concat([wavHeader('pcm16', 16000, x.length * 2), Buffer.alloc(x.length * 2)]);
  const d = await decodeUpload(bytes, { maxSeconds: 5 });
  assert.equal(d.samples.length, 12345);
  assert.equal(d.sampleRate, 16000);
});
