import type { EngineInfo } from '../../engine.ts';
import { findKokoroVoice, kokoroLanguage } from '../../neural-models.ts';

export const KOKORO_SAMPLE_RATE = 24000;
export const KOKORO_MIN_RATE = 0.25;
export const KOKORO_MAX_RATE = 4;

/**
 * Kokoro v1.0 voices in the order of the grades its authors give them (VOICES.md of hexgrad/Kokoro-82M: af_heart
 * and af_bella lead, then af_nicole and bf_emma); voices not listed come after, by name.
 */
const KOKORO_ORDER = [
  'af_heart',
  'af_bella',
  'af_nicole',
  'bf_emma',
  'am_michael',
  'am_fenrir',
  'am_puck',
  'af_aoede',
  'af_kore',
  'af_sarah',
  'bm_george',
  'bm_fable',
  'bf_isabella',
  'bm_lewis',
  'am_echo',
  'am_eric',
  'am_liam',
  'am_onyx',
  'af_alloy',
  'af_nova',
];

export const kokoroInfo: EngineInfo = {
  id: 'kokoro',
  label: 'Kokoro (neural)',
  description: 'Kokoro-82M neural voices from VOICES_DIR (kokoro-*.onnx + voices-*.bin), phonemes from espeak-ng; one sentence at a time.',
  languages: [],
  sampleRate: KOKORO_SAMPLE_RATE,
  capabilities: {
    controls: ['rate'],
    speedRange: [KOKORO_MIN_RATE, KOKORO_MAX_RATE],
    phonemes: 'ipa',
    phonemeInput: true,
    breeding: 'style',
    natural: true,
  },
  voices: [],
  variants: [],
  // Above every Piper voice (a larger model), then by its authors' grades.
  quality({ base }) {
    const at = KOKORO_ORDER.indexOf(base.slice(base.indexOf('/') + 1));
    return 1000 - (at < 0 ? KOKORO_ORDER.length : at);
  },
};

export function kokoroLanguageOf(base: string): string | undefined {
  const found = findKokoroVoice(base);
  return found ? kokoroLanguage(found.voice)?.espeak : undefined;
}
