// What sets music and singing apart from speech, for the clone's refusal of samples that are not speech.
// Speech glides: its pitch is rarely steady for more than a syllable's nucleus, and its syllables come at
// irregular intervals. Singing and melodic instruments hold notes (a steady pitch, vibrato aside, for a fifth of a
// second and more); drums and a band strike at a steady tempo, so the loudness onsets repeat at one period.
import { bandPass } from './filters.ts';
import { frameLevels } from './levels.ts';
import type { PitchTrack } from './pitch.ts';

/** A note is held at least this long... */
const NOTE_SECONDS = 0.2;
/** ...with its pitch this close to the note's running mean, in semitones: a singer's vibrato swings ±0.3-0.5. */
const NOTE_TOLERANCE_ST = 0.6;

/**
 * Share of the voiced frames that lie in held notes: runs of voiced frames at least NOTE_SECONDS long whose
 * pitch stays within NOTE_TOLERANCE_ST of the run's running mean.
 */
export function heldNoteShare(track: PitchTrack): number {
  const { f0, hopSeconds } = track;
  const smooth = Float64Array.from(f0, (f) => (f > 0 ? 12 * Math.log2(f / 100) : NaN));
  const minRun = Math.round(NOTE_SECONDS / hopSeconds);
  let voiced = 0;
  let held = 0;
  // Grow a note from each frame while the smoothed pitch stays within the tolerance of the note's running mean.
  for (let i = 0; i < smooth.length;) {
    if (Number.isNaN(smooth[i])) {
      i++;
      continue;
    }
    let j = i;
    let sum = 0;
    while (j < smooth.length && !Number.isNaN(smooth[j]) && (j === i || Math.abs(smooth[j] - sum / (j - i)) <= NOTE_TOLERANCE_ST)) {
      sum += smooth[j];
      j++;
    }
    voiced += j - i;
    if (j - i >= minRun) held += j - i;
    i = j;
  }
  return voiced > 0 ? held / voiced : 0;
}

/** Tempi a beat is looked for at: 40-200 beats per second's periods, 0.3-1.5 s, above syllables' 0.1-0.3 s. */
const MIN_PERIOD_SECONDS = 0.3;
const MAX_PERIOD_SECONDS = 1.5;
/** Onsets are taken in octave-spaced bands, a drum's thump, a note's fundamental and its harmonics each in its own. */
const ONSET_BANDS_HZ = [100, 200, 400, 800, 1600, 3200];

/**
 * How regularly the sound's onsets repeat: the highest normalised autocorrelation of the onset strength (the
 * rise in frame loudness, half-wave rectified) at a lag of 0.3-1.5 s, confirmed at twice that lag (a beat repeats;
 * a chance match once does not). Drum loops measure near 1; speech's syllables, whose spacing wanders, stay low.
 */
export function beatRegularity(samples: Float32Array, rate: number): number {
  // Band by band: a new note over the ringing of the last one barely moves the overall level, but its own band's.
  let onset: Float64Array | undefined;
  let hop = 0;
  for (const centre of ONSET_BANDS_HZ) {
    if (centre * 1.5 >= rate / 2) continue;
    const levels = frameLevels(bandPass(samples, rate, centre, 1), rate);
    const { db, silenceDb } = levels;
    hop = levels.hop;
    onset ??= new Float64Array(db.length);
    for (let i = 1; i < db.length; i++) onset[i] += Math.max(0, Math.max(db[i], silenceDb) - Math.max(db[i - 1], silenceDb));
  }
  if (!onset) return 0;
  let mean = 0;
  for (const v of onset) mean += v;
  mean /= onset.length || 1;
  for (let i = 0; i < onset.length; i++) onset[i] -= mean;
  let energy = 0;
  for (const v of onset) energy += v * v;
  if (energy <= 0) return 0;
  const hopSeconds = hop / rate;
  const correlation = (lag: number): number => {
    let sum = 0;
    for (let i = lag; i < onset.length; i++) sum += onset[i] * onset[i - lag];
    // Scaled for the overlap, so a lag near the recording's length is not favoured or penalised.
    return onset.length > lag ? (sum / (onset.length - lag)) * (onset.length / energy) : 0;
  };
  const minLag = Math.round(MIN_PERIOD_SECONDS / hopSeconds);
  const maxLag = Math.min(Math.round(MAX_PERIOD_SECONDS / hopSeconds), Math.floor(onset.length / 3));
  let best = 0;
  for (let lag = minLag; lag <= maxLag; lag++) {
    const once = correlation(lag);
    if (once <= best) continue;
    best = Math.max(best, Math.min(once, correlation(2 * lag)));
  }
  return best;
}
