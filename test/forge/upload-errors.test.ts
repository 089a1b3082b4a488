// The clone upload's error table: every bad upload is a 4xx with a JSON {error}, nothing is stored, and
// the server keeps serving.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pcm16Wav, pcm16WavHeader } from '../audio/signals.ts';
import { useService } from '../helpers/fixture.ts';
import { recordSpeaker, SKIP_NO_SPEAKERS, transcode, uploadClone } from './helpers.ts';

const s = useService({ user: 'uploads@example.com' });

/** A WAV of float samples, each clamped to [-1, 1] and scaled to 16 bits. */
function wav(samples: Float32Array, rate: number): Buffer {
  return pcm16Wav(
    Array.from(samples, (x) => Math.max(-1, Math.min(1, x)) * 32767),
    rate,
  );
}

function noise(seconds: number, rate: number, amp: number): Float32Array {
  let state = 12345;
  return Float32Array.from({ length: Math.round(seconds * rate) }, () => {
    state = (state * 1103515245 + 12345) >>> 0;
    return amp * (state / 2 ** 31 - 1);
  });
}

async function expectError(res: Response, status: number, code?: string): Promise<void> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  const body = JSON.parse(text) as { error: unknown; code?: unknown };
  assert.equal(typeof body.error, 'string');
  if (code) assert.equal(body.code, code, text);
}

describe('refused uploads', () => {
  test('not audio, whatever it claims to be: 415', async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(4000, 7)]);
    await expectError(
      await uploadClone(s, s.key, png, { name: 'png', contentType: 'audio/wav', fileName: 'voice.wav' }),
      415,
      'unsupported_audio',
    );
    await expectError(
      await uploadClone(s, s.key, Buffer.from('hello, this is not audio at all'.repeat(100)), { name: 'text' }),
      415,
      'unsupported_audio',
    );
  });

  test('over 10 MiB: 413', async () => {
    const big = Buffer.concat([pcm16WavHeader(16000, 10 * 1024 * 1024), Buffer.alloc(10 * 1024 * 1024)]);
    await expectError(await uploadClone(s, s.key, big, { name: 'big' }), 413);
  });

  test('under 3 s: 400', async () => {
    const short = wav(noise(1, 16000, 0.3), 16000);
    await expectError(await uploadClone(s, s.key, short, { name: 'short' }), 400, 'audio_too_short');
  });

  test('over 120 s of audio: 413; a WAV header claiming hours is judged by the data it holds', async () => {
    // WAV cannot expand, so the claim is not a bomb: one real second is simply too short.
    const claimsHours = Buffer.concat([pcm16WavHeader(48000, 3 * 3600 * 48000 * 2), Buffer.alloc(48000 * 2)]);
    await expectError(await uploadClone(s, s.key, claimsHours, { name: 'hours' }), 400, 'audio_too_short');
    const long = wav(new Float32Array(125 * 8000), 8000);
    await expectError(await uploadClone(s, s.key, long, { name: 'long' }), 413, 'audio_too_long');
  });

  test('a decompression bomb (a tiny FLAC of an hour of silence): 413', { skip: SKIP_NO_SPEAKERS }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'voxsmith-bomb-'));
    try {
      const path = join(dir, 'bomb.flac');
      const r = spawnSync('ffmpeg', [
        '-v',
        'error',
        '-f',
        'lavfi',
        '-i',
        'anullsrc=r=8000:cl=mono',
        '-t',
        '3600',
        '-c:a',
        'flac',
        '-frame_size',
        '65535',
        path,
      ]);
      assert.equal(r.status, 0, r.stderr?.toString());
      const bomb = readFileSync(path);
      assert.ok(bomb.length < 100_000, `${bomb.length} bytes`);
      await expectError(await uploadClone(s, s.key, bomb, { name: 'bomb', contentType: 'audio/flac' }), 413, 'audio_too_long');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('truncated files: 400', { skip: SKIP_NO_SPEAKERS }, async () => {
    const speech = recordSpeaker('flite-kal');
    await expectError(await uploadClone(s, s.key, speech.subarray(0, 30), { name: 'cut wav' }), 400, 'invalid_audio');
    const ogg = transcode(speech, 'ogg', ['-c:a', 'libvorbis']);
    // The identification and comment headers survive; the audio does not.
    await expectError(await uploadClone(s, s.key, ogg.subarray(0, 200), { name: 'cut ogg' }), 400);
    const mp3 = transcode(speech, 'mp3', ['-c:a', 'libmp3lame', '-b:a', '64k']);
    await expectError(await uploadClone(s, s.key, mp3.subarray(0, 4000), { name: 'cut mp3' }), 400, 'audio_too_short');
  });

  test('silence or noise, however long: 400 / 422', async () => {
    await expectError(await uploadClone(s, s.key, wav(new Float32Array(5 * 16000), 16000), { name: 'silence' }), 400, 'no_speech');
    // Noise sounds, so it is judged (and refused) as not speech: see not-speech.test.ts.
    await expectError(await uploadClone(s, s.key, wav(noise(5, 16000, 0.3), 16000), { name: 'noise' }), 422, 'not_speech');
  });

  test('missing audio or name, or a bad name: 400', { skip: SKIP_NO_SPEAKERS }, async () => {
    const speech = recordSpeaker('flite-slt');
    await expectError(await uploadClone(s, s.key, null, { name: 'nothing' }), 400);
    await expectError(await uploadClone(s, s.key, speech, { field: 'sample', name: 'wrong field' }), 400);
    await expectError(await uploadClone(s, s.key, speech, {}), 400, 'validation');
    await expectError(await uploadClone(s, s.key, speech, { name: '   ' }), 400, 'validation');
    await expectError(await uploadClone(s, s.key, speech, { name: 'x'.repeat(101) }), 400, 'validation');
    // A transcript up to 4000 characters is read; longer ones are refused, not cut.
    await expectError(await uploadClone(s, s.key, speech, { name: 'long', transcript: 'word '.repeat(801) }), 400, 'validation');
    await expectError(await uploadClone(s, s.key, speech, { name: 'longer', transcript: 'word '.repeat(4000) }), 400, 'validation');
    const form = new FormData();
    form.append('audio', 'not a file');
    form.append('name', 'text field');
    await expectError(
      await fetch(`${s.base}/v1/forge/clone`, { method: 'POST', headers: { authorization: `Bearer ${s.key}` }, body: form }),
      400,
    );
  });

  test('not multipart: 415; no key: 401', async () => {
    await expectError(await s.call('/v1/forge/clone', { json: { name: 'json', audio: 'AAAA' } }), 415);
    await expectError(await s.call('/v1/forge/clone', { body: 'raw', headers: { 'content-type': 'audio/wav' } }), 415);
    await expectError(await s.call('/v1/forge/clone', { method: 'POST' }), 415);
    const res = await fetch(`${s.base}/v1/forge/clone`, { method: 'POST', body: new FormData() });
    await expectError(res, 401);
  });

  test('after all that the server still serves, and nothing was stored', async () => {
    const res = await s.call('/api/voices');
    assert.equal(res.status, 200);
    const { voices } = (await res.json()) as { voices: Array<{ source: string }> };
    assert.ok(voices.length > 300);
    assert.equal(voices.filter((v) => v.source !== 'builtin').length, 0);
  });
});
