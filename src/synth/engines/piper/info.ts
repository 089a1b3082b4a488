import type { EngineInfo } from '../../engine.ts';
import { findPiperVoice } from '../../neural-models.ts';

/** length_scale = model's / rate; Piper stays usable over this range. */
export const PIPER_MIN_RATE = 0.25;
export const PIPER_MAX_RATE = 4;

/** Piper's qualities, best first (its voices.json: x_low 16 kHz small models ... high 22 kHz large ones). */
const PIPER_QUALITY = ['high', 'medium', 'low', 'x_low'];

export const piperInfo: EngineInfo = {
  id: 'piper',
  label: 'Piper (neural)',
  description: 'Piper VITS neural voices from VOICES_DIR (name.onnx + name.onnx.json), phonemes from espeak-ng; one sentence at a time.',
  languages: [],
  sampleRate: 22050,
  capabilities: {
    controls: ['rate'],
    speedRange: [PIPER_MIN_RATE, PIPER_MAX_RATE],
    phonemes: 'ipa',
    phonemeInput: true,
    // A fixed model per voice, with no genes to mix.
    breeding: 'none',
    natural: true,
  },
  // The voices depend on VOICES_DIR: the voice library lists them (src/voices/neural-catalog.ts).
  voices: [],
  variants: [],
  quality({ tags }) {
    const at = PIPER_QUALITY.findIndex((q) => tags.includes(q));
    return 500 - (at < 0 ? PIPER_QUALITY.length : at) * 10;
  },
};

export function piperLanguageOf(base: string): string | undefined {
  return findPiperVoice(base)?.model.espeakVoice;
}
