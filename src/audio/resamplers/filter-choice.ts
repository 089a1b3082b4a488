// The lighter filter (speex quality 3: 48 taps, pass band to 84 % of the lower Nyquist frequency) where it
// still passes everything below 8 kHz, where these voices put almost all their energy; else the full one
// (quality 5: 80 taps, 92 %), so a 16 kHz voice keeps its fricatives up to 7.4 kHz. At quality 5, speex took a
// third of espeak's own time resampling 22 050 to 24 000 Hz.
const LIGHT_PASSBAND = 0.84;
const SPEECH_BAND_HZ = 8000;

/** Whether the lighter filter serves between two rates. */
export const lightFilterFits = (inRate: number, outRate: number): boolean =>
  (LIGHT_PASSBAND * Math.min(inRate, outRate)) / 2 >= SPEECH_BAND_HZ;
