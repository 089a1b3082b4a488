import type { EnginePitch } from '../../engine.ts';
import { CALIBRATION } from '../calibration.ts';

// flite's heard median pitch is a measured line in its int_f0_target_mean, per voice (rms ignores the target).
export const flitePitch: EnginePitch = {
  naturalHz: (base) => CALIBRATION.voices[`flite-${base}`]?.natural.pitch_hz,
  controllable: (base) => CALIBRATION.flite[base]?.controllable ?? true,
  controlFor(base, hz) {
    const model = CALIBRATION.flite[base];
    return model ? (hz - model.offset) / model.slope : hz;
  },
};
