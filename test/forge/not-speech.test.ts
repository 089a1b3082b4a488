// Cloning once refused nothing that sounds: a pure 440 Hz sine became a "female" voice at 400 Hz. Tones (steady,
// wavering or sweeping), hums, noise and clicks are now refused with a message naming what is wrong, and real
// speech (synthetic voices and LibriVox readers) is still accepted.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { useService } from '../helpers/fixture.ts';
import { recordSpeaker, SKIP_NO_SPEAKERS, uploadClone } from './helpers.ts';
import { pcm16Wav } from '../audio/signals.ts';
import { bandMix, drumLoop, MUSIC_RATE, pianoArpeggio, sungMelody } from './music-signals.ts';

const RATE = 16000;
const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav';

function wav(samples: Float32Array): Buffer {
  return pcm16Wav(
    samples.map((x) => Math.max(-1, Math.min(1, x)) * 32767),
    RATE,
  );
}

function signal(seconds: number, f: (t: number, i: number) => number): Float32Array {
  return Float32Array.from({ length: Math.round(seconds * RATE) }, (_, i) => f(i / RATE, i));
}

let state = 987654321;
function random(): number {
  state = (state * 1103515245 + 12345) >>> 0;
  return state / 2 ** 31 - 1;
}

const s = useService({ user: 'not-speech@example.com' });

async function expectRefused(bytes: Uint8Array, status: number, code: string, message: RegExp): Promise<void> {
  const res = await uploadClone(s, s.key, bytes, { name: 'not speech' });
  const text = await res.text();
  assert.equal(res.status, status, text);
  const body = JSON.parse(text) as { error: string; code: string; request_id: string };
  assert.equal(body.code, code, text);
  assert.match(body.error, message);
  assert.equal(typeof body.request_id, 'string');
}

describe('clone refuses recordings that are not speech', () => {
  test('a pure 440 Hz sine: a steady tone', async () => {
    await expectRefused(wav(signal(5, (t) => 0.5 * Math.sin(2 * Math.PI * 440 * t))), 422, 'not_speech', /steady tone.*(439|44[01]) Hz/);
  });

  test('a steady 120 Hz hum with harmonics: a steady tone', async () => {
    const hum = signal(5, (t) => [1, 2, 3, 4, 5].reduce((sum, k) => sum + (0.3 / k) * Math.sin(2 * Math.PI * 120 * k * t), 0));
    await expectRefused(wav(hum), 422, 'not_speech', /steady tone.*(119|12[01]) Hz/);
  });

  test('white noise: a flat spectrum', async () => {
    await expectRefused(wav(signal(5, () => 0.3 * random())), 422, 'not_speech', /noise.*spectral flatness/);
  });

  test('a tone that wavers but never forms syllables: no syllable rhythm', async () => {
    // Vibrato of ±10 Hz moves the pitch past the steady-tone check; the loudness never changes.
    const vibrato = signal(5, (t) => 0.5 * Math.sin(2 * Math.PI * 220 * t + (10 / 5) * Math.sin(2 * Math.PI * 5 * t)));
    await expectRefused(wav(vibrato), 422, 'not_speech', /syllable rhythm/);
  });

  test('a sawtooth whose pitch sweeps like intonation: its loudness never rises and falls', async () => {
    // Its pitch moves by many semitones a few times a second, and its harmonics sweeping through the band where
    // syllables are counted fake a syllable rhythm there; its overall loudness stays the same all along.
    for (const [base, depth, perSecond] of [
      [150, 90, 4],
      [100, 30, 2],
      [220, 200, 2],
    ]) {
      let phase = 0;
      const saw = signal(5, (t) => {
        phase += (base + depth * Math.sin(2 * Math.PI * perSecond * t)) / RATE;
        return 0.5 * (2 * (phase % 1) - 1);
      });
      await expectRefused(wav(saw), 422, 'not_speech', /loudness never rises and falls.*synthetic tone/);
    }
  });

  // Music and singing once passed every check above: pitch moving by many semitones, a rhythm, loudness rising and
  // falling. What gives them away is held notes and a steady beat.
  test('a drum loop (kicks, snares, hi-hats at 110 bpm): a steady beat', async () => {
    assert.equal(MUSIC_RATE, RATE);
    await expectRefused(wav(drumLoop()), 422, 'not_speech', /music, not speech.*steady beat/);
  });

  test('a band mix (a plucked lead over chords and drums): a steady beat', async () => {
    await expectRefused(wav(bandMix()), 422, 'not_speech', /music, not speech.*steady beat/);
  });

  test('a piano-like arpeggio with decaying harmonics: held notes', async () => {
    await expectRefused(wav(pianoArpeggio()), 422, 'not_speech', /singing or music.*steady notes/);
  });

  test('a sung melody (a vowel held at each note, with vibrato): held notes', async () => {
    await expectRefused(wav(sungMelody()), 422, 'not_speech', /singing or music.*steady notes/);
    // Sung slower, in notes of 0.9 s: the held notes give it away whatever the beat.
    await expectRefused(wav(sungMelody(7, 0.9)), 422, 'not_speech', /singing or music.*steady notes/);
  });

  test('silence with clicks: nothing sounds long enough', async () => {
    const clicks = signal(5, (_t, i) => (i % 4000 < 20 ? 0.8 * random() : 0));
    await expectRefused(wav(clicks), 400, 'no_speech', /click/);
  });
});

describe('clone still accepts speech', () => {
  test("the service's own voices, the flattest (flite slt) and espeak's", async () => {
    const text =
      'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. ' +
      'It is easy to tell the depth of a well. These days a chicken leg is a rare dish.';
    for (const voice_id of ['flite-slt', 'espeak-en-us-male-1']) {
      const spoken = await s.request('/v1/speak', { json: { text, voice_id, format: 'wav' }, bearer: s.key });
      assert.equal(spoken.status, 200);
      const res = await uploadClone(s, s.key, new Uint8Array(await spoken.arrayBuffer()), { name: voice_id });
      assert.equal(res.status, 201, `${voice_id}: ${await res.text()}`);
    }
  });

  test('espeak and flite renders', { skip: SKIP_NO_SPEAKERS }, async () => {
    for (const speaker of ['espeak-low', 'flite-slt'] as const) {
      const res = await uploadClone(s, s.key, recordSpeaker(speaker), { name: speaker });
      assert.equal(res.status, 201, await res.text());
    }
  });

  test('a LibriVox reader', { skip: existsSync(LIBRIVOX) ? false : 'pocketsphinx test data not installed' }, async () => {
    const res = await uploadClone(s, s.key, readFileSync(LIBRIVOX), { name: 'reader' });
    assert.equal(res.status, 201, await res.text());
  });

  test(
    'a LibriVox reader under as much white noise as speech (0 dB SNR): flat spectrum, but voiced',
    { skip: existsSync(LIBRIVOX) ? false : 'pocketsphinx test data not installed' },
    async () => {
      const r = spawnSync('sox', ['-R', '-m', LIBRIVOX, `|sox -R ${LIBRIVOX} -p synth whitenoise vol 0.1`, '-t', 'wav', '-'], {
        maxBuffer: 64 << 20,
      });
      assert.equal(r.status, 0, r.stderr?.toString());
      const res = await uploadClone(s, s.key, r.stdout, { name: 'noisy reader' });
      assert.equal(res.status, 201, await res.text());
    },
  );
});
