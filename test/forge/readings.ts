// Measures a set of separate readings (one recording per sentence) as one: each is decoded and brought to the
// analysis rate, then they are joined with a second of silence between them, which the sounding time leaves
// out, so the total is the time spent speaking whatever pauses each recording holds.
import { decodeUpload } from '../../src/audio/decode.ts';
import { resampleAll } from '../../src/audio/resample.ts';
import { concatSamples } from '../../src/audio/samples.ts';
import { ANALYSIS_RATE, measureSpeaker } from '../../src/forge/speaker-features.ts';

export interface ReadingsMeasure {
  /** Seconds that sound in all the readings together (pauses over 120 ms left out). */
  soundingSeconds: number;
  /** Median pitch over all of them, Hz. */
  pitchHz: number;
}

export async function measureReadings(recordings: readonly Uint8Array[]): Promise<ReadingsMeasure> {
  const parts: Float32Array[] = [];
  const gap = new Float32Array(ANALYSIS_RATE);
  for (const bytes of recordings) {
    const d = await decodeUpload(bytes, { maxSeconds: 600 });
    parts.push(d.sampleRate === ANALYSIS_RATE ? d.samples : await resampleAll(d.samples, d.sampleRate, ANALYSIS_RATE), gap);
  }
  const f = await measureSpeaker(concatSamples(parts), ANALYSIS_RATE);
  if (!f || f.pitch_hz === 0) throw new Error('no voiced speech in the readings');
  return { soundingSeconds: f.sounding_seconds, pitchHz: f.pitch_hz };
}
