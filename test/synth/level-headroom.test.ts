// The level stage through the real server: every voice comes out where listeners expect speech (−19 to −16 LUFS,
// true peak under −1 dBTP), at one loudness, AND keeps the dynamics its engine gave it. A quiet, peaky voice
// (flite's kal16, espeak's male voices) raised to a common target the limiter then has to squash sounds flattened
// and harsh, so each voice's peak-to-loudness ratio (true peak minus integrated loudness) is compared with the
// engine's own render of the same text, measured by ffmpeg: voices whose peaks fit keep it whole, the peaky ones
// lose what the limiter may take (voice-loudness.ts: at most 2 dB off the highest peak of the reference sentence, 3-3.5 dB at the −18.75 LUFS floor).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { loadEngine } from '../../src/synth/registry.ts';
import { getBuiltinVoice } from '../../src/voices/builtin.ts';
import { SKIP_NO_FFMPEG, TempDir } from '../audio/ffmpeg.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { render } from './helpers.ts';
import { assertStatus } from '../helpers/responses.ts';

let s: TestServer;
let key: string;
const tmp = new TempDir();
const RATE = 24000;

interface Level {
  lufs: number;
  truePeak: number;
  /** ebur128's own true peak (peak=true), the independent judge; it rings near a 24 kHz stream's Nyquist frequency. */
  eburTruePeak: number;
}

/**
 * Integrated loudness (ffmpeg's ebur128) and true peak: the sample peak after soxr's 4x oversampling (ebur128's own
 * true peak rings near a 24 kHz stream's Nyquist frequency).
 */
function measure(x: Float32Array, rate: number, name: string): Level {
  const path = tmp.file(`${name}.f32`, new Uint8Array(x.buffer, x.byteOffset, x.byteLength));
  const meter = (filter: string): string => {
    const r = spawnSync(
      'ffmpeg',
      ['-hide_banner', '-nostats', '-f', 'f32le', '-ar', String(rate), '-ac', '1', '-i', path, '-af', filter, '-f', 'null', '-'],
      { encoding: 'utf8' },
    );
    assert.equal(r.status, 0, r.stderr);
    return r.stderr.slice(r.stderr.lastIndexOf('Summary:'));
  };
  const lufs = Number(/I:\s+(-?[\d.]+) LUFS/.exec(meter('ebur128'))?.[1]);
  const truePeak = Number(
    /Peak:\s+(-?[\d.]+) dBFS/.exec(meter(`aresample=${rate * 4}:resampler=soxr:precision=28,ebur128=peak=sample`))?.[1],
  );
  const eburTruePeak = Number(/Peak:\s+(-?[\d.]+) dBFS/.exec(meter('ebur128=peak=true'))?.[1]);
  assert.ok(Number.isFinite(lufs) && Number.isFinite(truePeak), `${name}: ${lufs} LUFS, ${truePeak} dBTP`);
  return { lufs, truePeak, eburTruePeak };
}

async function served(text: string, voice_id: string): Promise<Float32Array> {
  const res = await s.request('/v1/speak', { json: { text, voice_id, format: 'pcm' }, bearer: key });
  await assertStatus(res, 200);
  const b = new Uint8Array(await res.arrayBuffer());
  const pcm = new Int16Array(b.buffer, b.byteOffset, b.byteLength >> 1);
  return Float32Array.from(pcm, (v) => v / 32768);
}

describe('the level stage keeps each voice as dynamic as its engine made it', { skip: SKIP_NO_FFMPEG }, () => {
  before(async () => {
    s = await startServer({ env: { WORKERS: '1' } });
    ({ key } = await s.newKey('level@example.com'));
  });
  after(async () => {
    await s?.close();
    tmp.remove();
  });

  // Plain words (nothing the service's text normalization rewrites), so the engine alone reads the same text.
  const TEXT =
    'Good morning. This is a short announcement to compare how each voice sounds. ' +
    'The train to the city leaves from platform two at a quarter past nine, and the next one follows soon after! ' +
    'Would you please keep your belongings with you at all times?';
  // Every flite voice (the default among them, and kal16, the quietest and peakiest) and espeak voices of both
  // kinds: the female ones fit under the ceiling, the male ones (glottal pulses 19-21 dB over their loudness) do not.
  const VOICES = [
    'flite-slt',
    'flite-kal16',
    'flite-awb',
    'flite-rms',
    'espeak-en-us-female-1',
    'espeak-en-us-male-1',
    'espeak-de-male-1',
    'espeak-en-gb-female-1',
  ];

  test('-19 to -16 LUFS, true peak at most -1 dBTP, one loudness (within 2 LU), each voice as dynamic as its engine made it', async (t) => {
    const rows: string[] = [];
    const loudness: number[] = [];
    const failures: string[] = [];
    // Every request first: the measurements in between would outlast the server's keep-alive.
    const audio = new Map<string, Float32Array>();
    for (const id of VOICES) audio.set(id, await served(TEXT, id));
    for (const id of VOICES) {
      const voice = getBuiltinVoice(id)!;
      const raw = await render(await loadEngine(voice.spec.engine), TEXT, voice.spec);
      const r = measure(raw.samples, raw.rate, `${id}-raw`);
      const v = measure(audio.get(id)!, RATE, `${id}-served`);
      const rawPlr = r.truePeak - r.lufs;
      const plr = v.truePeak - v.lufs;
      loudness.push(v.lufs);
      rows.push(
        `${id}: ${v.lufs} LUFS (raw ${r.lufs}), true peak ${v.truePeak} dBTP (ebur128 ${v.eburTruePeak}), PLR ${plr.toFixed(1)} dB (raw ${rawPlr.toFixed(1)})`,
      );
      if (v.lufs < -19.5 || v.lufs > -16) failures.push(`${id}: ${v.lufs} LUFS`);
      // The margin is the meters' disagreement (the service's 4x estimate against soxr's).
      if (v.truePeak > -0.8) failures.push(`${id}: true peak ${v.truePeak} dBTP`);
      // Room under the ceiling at -18 LUFS: the limiter leaves the voice alone (the meters' disagreement between the
      // engine's rate and the service's 24 kHz is up to 0.7 dB). A peaky voice loses what the limiter takes: at most
      // 2-3 dB off its highest peak on the reference sentence, a little more on a text whose peaks stand higher.
      const loss = rawPlr - plr;
      const fits = rawPlr - 18 <= -1.5;
      if (fits ? Math.abs(loss) > 1 : loss > 3.5)
        failures.push(`${id}: PLR ${loss.toFixed(1)} dB under the engine's (${fits ? 'fits' : 'peaky'})`);
    }
    const spread = Math.max(...loudness) - Math.min(...loudness);
    const report = `spread ${spread.toFixed(1)} LU\n${rows.join('\n')}`;
    t.diagnostic(report);
    if (spread > 2) failures.push(`spread ${spread.toFixed(1)} LU`);
    assert.deepEqual(failures, [], report);
  });

  test('a volume boost is still caught by the limiter: louder, peaks under the ceiling', async (t) => {
    // The default voice (room under the ceiling) and kal16 (already at the limiter at -18.75 LUFS).
    for (const id of ['flite-slt', 'flite-kal16']) {
      const plainAudio = await served(TEXT, id);
      const boostedAudio = await served(`<speak><prosody volume="+10dB">${TEXT}</prosody></speak>`, id);
      const plain = measure(plainAudio, RATE, `${id}-plain`);
      const boosted = measure(boostedAudio, RATE, `${id}-boosted`);
      t.diagnostic(`${id}: plain ${plain.lufs} LUFS, ${plain.truePeak} dBTP; +10 dB: ${boosted.lufs} LUFS, ${boosted.truePeak} dBTP`);
      assert.ok(boosted.lufs - plain.lufs > 4, `${id} +10 dB: ${boosted.lufs} LUFS against ${plain.lufs}`);
      // The ceiling is -1 dBTP; the margin is the meters' disagreement (the service's 4x estimate against soxr's).
      assert.ok(boosted.truePeak <= -0.8, `${id} +10 dB: true peak ${boosted.truePeak} dBTP`);
    }
  });
});
