// A WAV whose length is known carries its real RIFF and data sizes, so tools that trust the header (soxi, Python's
// wave) read it: a short download (/v1/speak, the OpenAI and ElevenLabs downloads: one sentence, rendered before a
// stream's first byte would leave anyway), with-timestamps (read whole) and a cached answer replayed. A first
// streamed WAV, and a longer download (which streams rather than hold its first byte back for the whole render,
// download-first-byte.test.ts), keep the open-ended header (0xFFFFFFFF).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { TempDir } from '../audio/ffmpeg.ts';
import { useService } from '../helpers/fixture.ts';

const s = useService({ user: 'wav-sizes@example.com' });
const tmp = new TempDir();
after(async () => {
  tmp.remove();
});

const HAS_SOX = spawnSync('soxi', ['-V0'], { stdio: 'ignore' }).error === undefined;

interface Sizes {
  riff: number;
  data: number;
  dataAt: number;
  bytesPerSample: number;
}

/** The header's RIFF size, data size and where the data starts. */
function sizes(file: Buffer): Sizes {
  assert.equal(file.toString('latin1', 0, 4), 'RIFF');
  assert.equal(file.toString('latin1', 8, 12), 'WAVE');
  let at = 12;
  let bytesPerSample = 0;
  for (;;) {
    const id = file.toString('latin1', at, at + 4);
    const size = file.readUInt32LE(at + 4);
    if (id === 'fmt ') bytesPerSample = file.readUInt16LE(at + 8 + 12);
    if (id === 'data') return { riff: file.readUInt32LE(4), data: size, dataAt: at + 8, bytesPerSample };
    at += 8 + size + (size & 1);
  }
}

/** Real sizes: the RIFF size is the file less 8, the data runs to the end (less RIFF's pad byte); soxi agrees. */
function assertKnownLength(file: Buffer, label: string): void {
  const h = sizes(file);
  assert.equal(h.riff, file.length - 8, `${label}: RIFF size`);
  assert.equal(h.dataAt + h.data + (h.data & 1), file.length, `${label}: data size`);
  if (HAS_SOX) {
    const path = tmp.file(`${label.replace(/\W+/g, '-')}.wav`, file);
    const soxi = spawnSync('soxi', ['-s', path], { encoding: 'utf8' });
    assert.equal(soxi.status, 0, soxi.stderr);
    assert.equal(Number(soxi.stdout.trim()), h.data / h.bytesPerSample, `${label}: soxi reads the sample count from the header`);
  }
}

const TEXT = 'Headers that tell the truth about their length.';
/** Longer than the one sentence a download holds back whole. */
const LONGER =
  'A header written before the end cannot know the length of what follows it. ' +
  'So a longer answer starts at once, with the sizes that mean until the end of the file, and the player reads to the end. ' +
  'Read whole, the same answer gets its real sizes.';

describe('WAV sizes', () => {
  for (const format of ['wav', 'mulaw', 'alaw'] as const) {
    test(`/v1/speak ${format}: real RIFF and data sizes`, async () => {
      const res = await s.call('/v1/speak', { json: { text: TEXT, voice_id: 'flite-slt', format } });
      assert.equal(res.status, 200);
      assertKnownLength(Buffer.from(await res.arrayBuffer()), `speak ${format}`);
    });
  }

  test('/v1/speak wav at another sample_rate, and with-timestamps: real sizes', async () => {
    const res = await s.call('/v1/speak', { json: { text: TEXT, format: 'wav', sample_rate: 16_000 } });
    assertKnownLength(Buffer.from(await res.arrayBuffer()), 'speak wav 16k');
    const timed = await s.call('/v1/speak/with-timestamps', { json: { text: TEXT, format: 'wav' } });
    assert.equal(timed.status, 200);
    const { audio } = (await timed.json()) as { audio: string };
    assertKnownLength(Buffer.from(audio, 'base64'), 'with-timestamps');
  });

  test('OpenAI wav and ElevenLabs wav_22050 downloads: real sizes', async () => {
    const openai = await s.call('/v1/audio/speech', {
      json: { model: 'tts-1', voice: 'alloy', input: TEXT, response_format: 'wav' },
    });
    assertKnownLength(Buffer.from(await openai.arrayBuffer()), 'openai');
    const eleven = await s.request('/v1/text-to-speech/flite-rms?output_format=wav_22050', {
      json: { text: TEXT },
      headers: { 'xi-api-key': s.key },
    });
    assertKnownLength(Buffer.from(await eleven.arrayBuffer()), 'elevenlabs');
  });

  test('a longer /v1/speak wav streams with the open-ended header; with-timestamps of it, read whole, has real sizes', async () => {
    const res = await s.call('/v1/speak', { json: { text: LONGER, voice_id: 'flite-kal16', format: 'wav' } });
    assert.equal(res.status, 200);
    const streamed = Buffer.from(await res.arrayBuffer());
    assert.equal(streamed.readUInt32LE(4), 0xffffffff, 'open-ended RIFF size');
    assert.equal(sizes(streamed).data, 0xffffffff);
    for (const format of ['wav', 'alaw'] as const) {
      const timed = await s.call('/v1/speak/with-timestamps', { json: { text: LONGER, voice_id: 'flite-kal16', format } });
      assert.equal(timed.status, 200);
      assertKnownLength(Buffer.from(((await timed.json()) as { audio: string }).audio, 'base64'), `with-timestamps ${format}, longer`);
    }
  });

  test('a streamed WAV is open-ended; the same request again, from the cache, has its real sizes and the same audio', async () => {
    const ask = async () => {
      const res = await s.request('/v1/text-to-speech/flite-awb/stream?output_format=wav_16000', {
        json: { text: 'Once streamed, then replayed.' },
        headers: { 'xi-api-key': s.key },
      });
      assert.equal(res.status, 200);
      return Buffer.from(await res.arrayBuffer());
    };
    const first = await ask();
    assert.equal(first.readUInt32LE(4), 0xffffffff, 'streamed: open-ended');
    assert.equal(sizes(first).data, 0xffffffff);
    const again = await ask();
    assertKnownLength(again, 'cache hit');
    assert.ok(again.subarray(sizes(again).dataAt).equals(first.subarray(sizes(first).dataAt)), 'the same samples');
  });
});
