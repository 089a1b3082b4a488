// How closely a clone matches its recording, measured by the server on words the sample did not contain.
import type { Voice } from '../types.ts';

interface HeldOutFit {
  pitch_semitones: number;
  rate_percent: number;
}

/** The stored fit of a cloned voice (`features.fit`), or null for any other voice or an older clone. */
function heldOutFit(voice: Voice): HeldOutFit | null {
  const features = (voice as Voice & { features?: unknown }).features;
  if (typeof features !== 'object' || features === null || !('fit' in features)) return null;
  const fit = features.fit;
  if (typeof fit !== 'object' || fit === null || !('held_out' in fit) || fit.held_out !== true) return null;
  const { pitch_semitones: pitch, rate_percent: rate } = fit as { pitch_semitones?: unknown; rate_percent?: unknown };
  return typeof pitch === 'number' && typeof rate === 'number' ? { pitch_semitones: pitch, rate_percent: rate } : null;
}

const signed = (x: number, digits: number): string => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x).toFixed(digits)}`;

export function CloneFit({ voice }: { voice: Voice }) {
  const fit = heldOutFit(voice);
  if (!fit) return null;
  return (
    <p className="meta" data-testid="clone-fit">
      Fit on new words: pitch {signed(fit.pitch_semitones, 1)} semitones, pace {signed(fit.rate_percent, 0)} % against the recording.
    </p>
  );
}
