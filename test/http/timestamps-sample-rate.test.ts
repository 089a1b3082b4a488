// /v1/speak/with-timestamps takes `sample_rate` as /v1/speak does: the audio in the answer is at that rate,
// and the word timings stay in seconds, the same at every rate.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SpeechWithTimestamps } from '../../src/schemas/timestamps.ts';
import { wavSampleCount } from '../audio/signals.ts';
import { useService } from '../helpers/fixture.ts';

const s = useService({ user: 'timestamps-rate@example.com' });

const TEXT = 'The quick brown fox jumps over the lazy dog.';

async function timed(body: Record<string, unknown>): Promise<SpeechWithTimestamps & { bytes: Buffer }> {
  const res = await s.call('/v1/speak/with-timestamps', { json: { text: TEXT, ...body } });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  const out = JSON.parse(text) as SpeechWithTimestamps;
  return { ...out, bytes: Buffer.from(out.audio, 'base64') };
}

/** When the last timed word ends, in seconds. */
function lastWordEnd(out: SpeechWithTimestamps): number {
  assert.ok(out.words.length > 0, 'words are timed');
  return out.words[out.words.length - 1].end;
}

describe('/v1/speak/with-timestamps honours sample_rate', () => {
  for (const voice of ['flite-slt', 'espeak-en-us-female-1']) {
    test(`${voice}: wav and pcm at 8 and 16 kHz, timings as at the voice's own rate`, async () => {
      const own = await timed({ voice_id: voice, format: 'pcm' });
      const ownSeconds = own.bytes.length / 2 / own.sample_rate;
      for (const rate of [8_000, 16_000]) {
        const wav = await timed({ voice_id: voice, format: 'wav', sample_rate: rate });
        assert.equal(wav.sample_rate, rate, 'the answer names the rate asked for');
        assert.equal(wav.bytes.readUInt32LE(24), rate, 'the WAV header says that rate');
        const wavSeconds = wavSampleCount(wav.bytes) / rate;

        const pcm = await timed({ voice_id: voice, format: 'pcm', sample_rate: rate });
        assert.equal(pcm.sample_rate, rate);
        const pcmSeconds = pcm.bytes.length / 2 / rate;

        for (const [name, out, seconds] of [
          ['wav', wav, wavSeconds],
          ['pcm', pcm, pcmSeconds],
        ] as const) {
          // The audio lasts as long at any rate: its samples are counted at the rate it was asked for.
          assert.ok(Math.abs(seconds - ownSeconds) < 0.01, `${name} ${rate} Hz: ${seconds} s vs ${ownSeconds} s at ${own.sample_rate} Hz`);
          assert.ok(Math.abs(out.duration - seconds) < 0.002, `${name} ${rate} Hz: duration ${out.duration} vs ${seconds} s of audio`);
          // The last word ends inside the audio, near its end (the speech stops there, not seconds earlier).
          const end = lastWordEnd(out);
          assert.ok(end <= seconds + 0.01 && end > seconds - 0.5, `${name} ${rate} Hz: last word ends at ${end} s of ${seconds} s`);
          // Timings are in seconds: the same at every rate (to the rounding of a sample count into milliseconds).
          assert.deepEqual(
            out.words.map(({ word, offset, length }) => ({ word, offset, length })),
            own.words.map(({ word, offset, length }) => ({ word, offset, length })),
          );
          out.words.forEach((w, i) => {
            const o = own.words[i];
            assert.ok(
              Math.abs(w.start - o.start) <= 0.002 && Math.abs(w.end - o.end) <= 0.002,
              `${name} ${rate} Hz, "${w.word}": ${w.start}-${w.end} vs ${o.start}-${o.end}`,
            );
          });
        }
      }
    });
  }
});
