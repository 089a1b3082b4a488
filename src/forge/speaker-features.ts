// What the forge measures about a speaker, from an upload or from a render of a voice. Every recording
// is brought to the same rates first, so that a telephone-quality upload, a flite render and an espeak
// render are measured alike (the syllable counter and the long-term spectrum both depend on the rate).
import { measurePitch, measureSpeakingRate, pitchTrack, spectralFeatures, trimSilence } from '../audio/analysis.ts';
import { beatRegularity, heldNoteShare } from '../audio/analysis/music.ts';
import { formantSpacing } from '../audio/analysis/formants.ts';
import { loudnessRange } from '../audio/analysis/levels.ts';
import { measureSyllabicRate } from '../audio/analysis/rhythm.ts';
import { resampleAll } from '../audio/resample.ts';
import { measureArticulation } from './articulation.ts';

/** Pitch and rhythm are measured at this rate. */
export const ANALYSIS_RATE = 16000;
/** Timbre is compared on this rate's band (0-4 kHz), which every upload has, 8 kHz telephone audio too. */
export const SPECTRUM_RATE = 8000;

export interface SpeakerFeatures {
  /** Median fundamental frequency of the voiced frames, Hz. */
  pitch_hz: number;
  pitch_p10_hz: number;
  pitch_p90_hz: number;
  /** Spread of the intonation: semitones from the 10th to the 90th percentile of f0. */
  pitch_range_st: number;
  /** Share of the sounding frames that are voiced. */
  voiced_fraction: number;
  /**
   * Geometric mean of two estimates with opposite biases across voice types: envelope peaks counted
   * (measureSpeakingRate: reads smooth voices such as HTS or flite slt slow, diphone voices fast) and the
   * envelope's modulation centroid (measureSyllabicRate: reads diphone voices a little fast).
   */
  syllables_per_second: number;
  /** Seconds of speech after silence was trimmed (long pauses shortened to 300 ms). */
  speech_seconds: number;
  /** Seconds that sound, pauses over 120 ms left out: two readings of one text compare by it. */
  sounding_seconds: number;
  /**
   * Syllables per second of speaking time, pauses over 120 ms cut out before the rhythm is measured
   * (measureArticulation): the pace of new sentences, however much the recording pauses. Absent from
   * measurements older than it.
   */
  articulation_rate?: number;
  /** Share of the time from the first to the last sound spent in pauses over 120 ms. */
  pause_share?: number;
  /** Mean length of those pauses, seconds (0 without any). */
  mean_pause_seconds?: number;
  /**
   * dB from the 10th to the 90th percentile of the 50 ms loudness while it sounds (loudnessRange): speech rises
   * and falls with its syllables, a synthetic tone does not. Absent from measurements older than it (the
   * base voices' calibration, clones stored before).
   */
  loudness_range_db?: number;
  /**
   * Share of the voiced time in held notes (heldNoteShare: a steady pitch, vibrato aside, for 200 ms and more):
   * speech glides (0-0.36 measured), singing and melodic instruments hold (0.77-1). Absent from older measurements.
   */
  held_note_share?: number;
  /**
   * How regularly the onsets repeat at one tempo (beatRegularity, 0-1): speech 0.03-0.1, drums and songs 0.5-0.95.
   * Absent from older measurements.
   */
  beat_regularity?: number;
  /** Formant spacing of a uniform tube fitted to F1-F3, Hz: ~1000 for men, ~1150+ for women (vocal tract length). */
  formant_spacing_hz: number;
  /** Long-term spectrum over 0-4 kHz. */
  spectral_centroid_hz: number;
  spectral_tilt_db_per_octave: number;
  spectral_rolloff_hz: number;
  spectral_flatness: number;
}

const round = (x: number, digits: number): number => {
  const k = 10 ** digits;
  return Math.round(x * k) / k;
};

/** Semitones from `a` to `b` (positive when b is higher). */
export function semitones(a: number, b: number): number {
  return 12 * Math.log2(b / a);
}

/** Measures a mono recording at any rate; null when it holds no speech at all. */
export async function measureSpeaker(samples: Float32Array, rate: number): Promise<SpeakerFeatures | null> {
  const x = rate === ANALYSIS_RATE ? samples : await resampleAll(samples, rate, ANALYSIS_RATE);
  const speech = trimSilence(x, ANALYSIS_RATE);
  if (speech.length === 0) return null;
  const pitch = measurePitch(speech, ANALYSIS_RATE);
  const rhythm = measureSyllabicRate(speech, ANALYSIS_RATE);
  const peaks = measureSpeakingRate(speech, ANALYSIS_RATE);
  // On the untrimmed recording: trimming shortens the pauses, and their length is measured here too.
  const articulation = measureArticulation(x, ANALYSIS_RATE);
  const span = articulation.speakingSeconds + articulation.pauseSeconds;
  const spacing = formantSpacing(speech, ANALYSIS_RATE);
  const narrow = await resampleAll(speech, ANALYSIS_RATE, SPECTRUM_RATE);
  const spectrum = spectralFeatures(narrow, SPECTRUM_RATE);
  const range = pitch.p10Hz > 0 ? semitones(pitch.p10Hz, pitch.p90Hz) : 0;
  // Rounded so that a measurement reads the same wherever it is stored or compared.
  return {
    pitch_hz: round(pitch.medianHz, 2),
    pitch_p10_hz: round(pitch.p10Hz, 2),
    pitch_p90_hz: round(pitch.p90Hz, 2),
    pitch_range_st: round(range, 3),
    voiced_fraction: round(pitch.voicedFraction, 3),
    syllables_per_second: round(Math.sqrt(rhythm.syllablesPerSecond * peaks.syllablesPerSecond), 3),
    speech_seconds: round(speech.length / ANALYSIS_RATE, 3),
    sounding_seconds: round(rhythm.soundingSeconds, 3),
    articulation_rate: round(articulation.syllablesPerSecond, 3),
    pause_share: round(span > 0 ? articulation.pauseSeconds / span : 0, 3),
    mean_pause_seconds: round(articulation.pauses > 0 ? articulation.pauseSeconds / articulation.pauses : 0, 3),
    loudness_range_db: round(loudnessRange(speech, ANALYSIS_RATE), 2),
    held_note_share: round(heldNoteShare(pitchTrack(speech, ANALYSIS_RATE)), 3),
    // On the untrimmed recording: shortened pauses would break a beat's period.
    beat_regularity: round(beatRegularity(x, ANALYSIS_RATE), 3),
    formant_spacing_hz: round(spacing, 1),
    spectral_centroid_hz: round(spectrum.centroidHz, 1),
    spectral_tilt_db_per_octave: round(spectrum.tilt, 3),
    spectral_rolloff_hz: round(spectrum.rolloffHz, 1),
    spectral_flatness: round(spectrum.flatness, 4),
  };
}

/**
 * The gender a listener most likely hears: pitch and vocal tract length together, so that a low-pitched
 * woman or a high-pitched man is not misjudged by pitch alone. Each cue is scaled by how far apart it
 * sits between typical men and women (f0 ~110 vs ~210 Hz, formant spacing ~1000 vs ~1170 Hz).
 */
export function perceivedGender(f: Pick<SpeakerFeatures, 'pitch_hz' | 'formant_spacing_hz'>): 'male' | 'female' {
  const pitch = Math.log2(f.pitch_hz / 155) / 0.6;
  const tract = f.formant_spacing_hz > 0 ? Math.log2(f.formant_spacing_hz / 1090) / 0.07 : 0;
  return pitch + tract > 0 ? 'female' : 'male';
}
