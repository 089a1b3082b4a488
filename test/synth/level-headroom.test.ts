// The level stage through the real server: every voice comes out at one loudness AND keeps the dynamics its
// engine gave it. A quiet, peaky voice (flite's kal16, espeak's male voices) raised to a common target the
// limiter then has to squash sounds flattened and harsh, so each voice's peak-to-loudness ratio (true peak
// minus integrated loudness) is compared with the engine's own render of the same text, measured by ffmpeg.
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
  assert.ok(Number.isFinite(lufs) && Number.isFinite(truePeak), `${name}: ${lufs} LUFS, ${truePeak} dBTP`);
  return { lufs, truePeak };
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
  // The default voice, the quietest and peakiest flite voice, and the peakiest espeak voices (male: their
  // glottal pulses peak 20 dB over their loudness).
  const VOICES = ['flite-slt', 'flite-kal16', 'espeak-en-us-male-1', 'espeak-de-male-1', 'espeak-en-gb-female-1'];

  test('one loudness (within 2 LU) and each peak-to-loudness ratio within 2 dB of the raw engine', async (t) => {
    const rows: string[] = [];
    const loudness: number[] = [];
    const plrLoss: number[] = [];
    for (const id of VOICES) {
      const voice = getBuiltinVoice(id)!;
      const raw = await render(await loadEngine(voice.spec.engine), TEXT, voice.spec);
      const r = measure(raw.samples, raw.rate, `${id}-raw`);
      const v = measure(await served(TEXT, id), RATE, `${id}-served`);
      const rawPlr = r.truePeak - r.lufs;
      const plr = v.truePeak - v.lufs;
      loudness.push(v.lufs);
      plrLoss.push(rawPlr - plr);
      rows.push(`${id}: ${v.lufs} LUFS (raw ${r.lufs}), PLR ${plr.toFixed(1)} dB (raw ${rawPlr.toFixed(1)}), true peak ${v.truePeak} dBTP`);
    }
    const spread = Math.max(...loudness) - Math.min(...loudness);
    const report = `spread ${spread.toFixed(1)} LU\n${rows.join('\n')}`;
    t.diagnostic(report);
    assert.ok(spread <= 2, report);
    assert.ok(
      plrLoss.every((d) => Math.abs(d) <= 2),
      report,
    );
  });

  test('a volume boost is still caught by the limiter: louder, peaks under the ceiling', async (t) => {
    const plain = measure(await served(TEXT, 'flite-kal16'), RATE, 'kal16-plain');
    const boosted = measure(await served(`<speak><prosody volume="+10dB">${TEXT}</prosody></speak>`, 'flite-kal16'), RATE, 'kal16-boosted');
    t.diagnostic(`plain ${plain.lufs} LUFS, ${plain.truePeak} dBTP; +10 dB: ${boosted.lufs} LUFS, ${boosted.truePeak} dBTP`);
    assert.ok(boosted.lufs - plain.lufs > 6, `+10 dB: ${boosted.lufs} LUFS against ${plain.lufs}`);
    // The ceiling is -1 dBTP; the margin is the meters' disagreement (the service's 4x estimate against soxr's).
    assert.ok(boosted.truePeak <= -0.8, `+10 dB: true peak ${boosted.truePeak} dBTP`);
  });
});
