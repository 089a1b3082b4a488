// Generates src/forge/forge-calibration.json: how each built-in voice sounds (measured on the forge's fit
// text), how intelligible it is (pocketsphinx's word error rate on fixed sentences, where a recognizer for its
// language is at hand) and how the engines' pitch controls move the heard pitch. The voice forge maps genomes onto
// engine controls with it. Run again after changing an engine, the catalog or the fit texts:
//   node --import tsx scripts/gen-forge-calibration.ts
// Renders go through the synthesizer and measurements through measureSpeaker(), exactly as a clone's fit
// does, so the numbers are in the same units as everything the forge measures at run time.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FLITE_VOICES } from '../src/synth/engines/flite/info.ts';
import { createSynthesizer, type Synthesizer } from '../src/synth/synthesizer.ts';
import type { VoiceSpec } from '../src/synth/voice-spec.ts';
import { BUILTIN_VOICES } from '../src/voices/builtin.ts';
import type { BaseVoiceCalibration, EspeakPitchModel, FlitePitchModel, ForgeCalibration } from '../src/synth/engines/calibration.ts';
import { fitTextDigest, fitTextFor, intelligibilityTextsFor } from '../src/forge/fit-text.ts';
import { renderPcm, RENDER_RATE } from '../src/synth/render-pcm.ts';
import { measureSpeaker, type SpeakerFeatures } from '../src/forge/speaker-features.ts';
import { loadEspeakPitchLines } from './lib/espeak-pitch-line.ts';
import { SKIP_NO_POCKETSPHINX, wordErrorRate } from './lib/word-error-rate.ts';

const OUT = fileURLToPath(new URL('../src/forge/forge-calibration.json', import.meta.url));
const ENGLISH = fitTextFor('en');

async function measure(synth: Synthesizer, spec: VoiceSpec, text: string): Promise<SpeakerFeatures> {
  const pcm = await renderPcm(synth, spec, text);
  const f = await measureSpeaker(pcm, RENDER_RATE);
  if (!f || f.pitch_hz === 0) throw new Error(`no voiced speech from ${JSON.stringify(spec)}`);
  return f;
}

/** Makes a sequence non-decreasing (measurement noise must not make the model non-invertible). */
function monotone(values: number[]): number[] {
  const out: number[] = [];
  for (const v of values) out.push(Math.max(v, (out[out.length - 1] ?? -Infinity) + 1e-3));
  return out;
}

async function espeakModel(synth: Synthesizer): Promise<EspeakPitchModel> {
  const rho = [0, 0.1, 0.25, 0.44, 0.7, 1, 1.5, 2];
  const base = 100;
  const median: number[] = [];
  const range: number[] = [];
  for (const r of rho) {
    const f = await measure(synth, { engine: 'espeak', base: 'en-us', controls: { pitchHz: base, pitchRangeHz: r * base } }, ENGLISH);
    median.push(Math.round((f.pitch_hz / base) * 1e4) / 1e4);
    range.push(f.pitch_range_st);
  }
  return { rho, median: monotone(median), range_st: monotone(range) };
}

async function fliteModels(synth: Synthesizer): Promise<Record<string, FlitePitchModel>> {
  const out: Record<string, FlitePitchModel> = {};
  for (const v of FLITE_VOICES) {
    const low = await measure(synth, { engine: 'flite', base: v.base, controls: { pitchHz: 100 } }, ENGLISH);
    const high = await measure(synth, { engine: 'flite', base: v.base, controls: { pitchHz: 200 } }, ENGLISH);
    const slope = (high.pitch_hz - low.pitch_hz) / 100;
    // A voice whose pitch does not follow the target at all (rms) is marked, not modelled.
    const controllable = slope > 0.5;
    out[v.base] = {
      controllable,
      slope: controllable ? Math.round(slope * 1e4) / 1e4 : 1,
      offset: controllable ? Math.round((low.pitch_hz - slope * 100) * 100) / 100 : 0,
    };
    console.error(`flite ${v.base}: ${JSON.stringify(out[v.base])}`);
  }
  return out;
}

/** The voice's word error rate on its language's intelligibility sentences, each read on its own; undefined without them. */
async function intelligibility(synth: Synthesizer, spec: VoiceSpec, language: string): Promise<number | undefined> {
  const texts = intelligibilityTextsFor(language);
  if (!texts || SKIP_NO_POCKETSPHINX) return undefined;
  const readings = [];
  for (const text of texts) readings.push({ samples: await renderPcm(synth, spec, text), rate: RENDER_RATE, text });
  return Math.round((await wordErrorRate(readings)) * 10) / 10;
}

async function main(): Promise<void> {
  if (SKIP_NO_POCKETSPHINX) console.error(`no word error rates: ${SKIP_NO_POCKETSPHINX}`);
  const synth = createSynthesizer({ workers: 2 });
  await synth.ready();
  const espeakPitchLine = await loadEspeakPitchLines();
  try {
    const espeak = await espeakModel(synth);
    console.error(`espeak model: ${JSON.stringify(espeak)}`);
    const flite = await fliteModels(synth);
    const voices: Record<string, BaseVoiceCalibration> = {};
    for (const v of BUILTIN_VOICES) {
      let natural: SpeakerFeatures;
      try {
        natural = await measure(synth, v.spec, fitTextFor(v.language));
      } catch (err) {
        // Such a voice cannot be a clone's base; as a parent it falls back to default genes.
        console.error(`${v.id}: left out: ${err instanceof Error ? err.message : String(err)}`);
        continue;
      }
      const cal: BaseVoiceCalibration = v.engine === 'espeak' ? { pitch_line: espeakPitchLine(v.spec), natural } : { natural };
      const wer = await intelligibility(synth, v.spec, v.language);
      if (wer !== undefined) cal.wer_percent = wer;
      voices[v.id] = cal;
      console.error(
        `${v.id}: ${natural.pitch_hz} Hz, ${natural.pitch_range_st} st, ${natural.articulation_rate} syl/s articulated` +
          (wer === undefined ? '' : `, WER ${wer} %`),
      );
    }
    const calibration: ForgeCalibration = { version: 1, fit_text_digest: fitTextDigest(), espeak, flite, voices };
    // One voice per line: diffs of a regenerated file stay readable.
    const lines = Object.entries(calibration.voices).map(([id, c]) => `    ${JSON.stringify(id)}: ${JSON.stringify(c)}`);
    const text =
      '{\n' +
      `  "version": 1,\n  "fit_text_digest": ${JSON.stringify(calibration.fit_text_digest)},\n` +
      `  "espeak": ${JSON.stringify(espeak)},\n  "flite": ${JSON.stringify(flite)},\n` +
      `  "voices": {\n${lines.join(',\n')}\n  }\n}\n`;
    writeFileSync(OUT, text);
    console.error(`wrote ${OUT} (${lines.length} voices)`);
  } finally {
    await synth.close();
  }
}

await main();
