import { DEEPGRAM_DEFAULT_MODEL } from '../../../schemas/deepgram.ts';
import type { SpeechService } from '../../../speech/speech-service.ts';

/** Deepgram's model names: `aura-<voice>-<language>` and `aura-2-<voice>-<language>`. */
const AURA = /^aura(?:-2)?-([a-z]+)-[a-z]{2}$/;

/** Aura's male voices; the rest of their catalogue is female. */
const AURA_MALE: ReadonlySet<string> = new Set([
  'alvaro',
  'angus',
  'apollo',
  'aquila',
  'arcas',
  'aries',
  'atlas',
  'draco',
  'helios',
  'hermes',
  'hyperion',
  'javier',
  'jupiter',
  'mars',
  'nestor',
  'neptune',
  'odysseus',
  'orion',
  'orpheus',
  'perseus',
  'pluto',
  'saturn',
  'zeus',
]);

/**
 * The voice a Deepgram `model` speaks with: an Aura model by its voice's gender as OpenAI's `ash` (male) or
 * `alloy` (female), so through the same mapping as OpenAI's names (an installed natural voice of that gender, else
 * a built-in one); any other value is a voice id of ours (or an OpenAI name).
 */
export function deepgramVoice(speech: SpeechService, model: string | undefined): string {
  const name = model ?? DEEPGRAM_DEFAULT_MODEL;
  const aura = AURA.exec(name);
  const voice = aura ? (AURA_MALE.has(aura[1]) ? 'ash' : 'alloy') : name;
  return speech.chooseOpenAiVoice('tts-1', voice).voiceId;
}
