import type { EngineInfo } from '../../engine.ts';
import { findPiperVoice } from '../../neural-models.ts';

/** length_scale = model's / rate; Piper stays usable over this range. */
export const PIPER_MIN_RATE = 0.25;
export const PIPER_MAX_RATE = 4;

export const piperInfo: EngineInfo = {
  id: 'piper',
  label: 'Piper (neural)',
  description: 'Piper VITS neural voices from VOICES_DIR (name.onnx + name.onnx.json), phonemes from espeak-ng; one sentence at a time.',
  languages: [],
  sampleRate: 22050,
  capabilities: {
    wordEvents: false,
    controls: ['rate'],
    variants: false,
    speedRange: [PIPER_MIN_RATE, PIPER_MAX_RATE],
  },
  // The voices depend on VOICES_DIR: the voice library lists them (src/voices/neural-catalog.ts).
  voices: [],
  variants: [],
};

export function piperLanguageOf(base: string): string | undefined {
  return findPiperVoice(base)?.model.espeakVoice;
}
