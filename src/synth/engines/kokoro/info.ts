import type { EngineInfo } from '../../engine.ts';
import { findKokoroVoice, kokoroLanguage } from '../../neural-models.ts';

export const KOKORO_SAMPLE_RATE = 24000;
export const KOKORO_MIN_RATE = 0.25;
export const KOKORO_MAX_RATE = 4;

export const kokoroInfo: EngineInfo = {
  id: 'kokoro',
  label: 'Kokoro (neural)',
  description: 'Kokoro-82M neural voices from VOICES_DIR (kokoro-*.onnx + voices-*.bin), phonemes from espeak-ng; one sentence at a time.',
  languages: [],
  sampleRate: KOKORO_SAMPLE_RATE,
  capabilities: {
    wordEvents: false,
    controls: ['rate'],
    variants: false,
    speedRange: [KOKORO_MIN_RATE, KOKORO_MAX_RATE],
  },
  voices: [],
  variants: [],
};

export function kokoroLanguageOf(base: string): string | undefined {
  const found = findKokoroVoice(base);
  return found ? kokoroLanguage(found.voice)?.espeak : undefined;
}
