import { AppError } from '../errors.ts';
import type { OpenAiVoiceName } from '../schemas/speech.ts';
import type { EngineId } from '../synth/voice-spec.ts';

/**
 * OpenAI's voice names onto ours: `voice` for its models (tts-1, tts-1-hd, gpt-4o-mini-tts), and one voice per
 * engine for `model` set to an engine id. Chosen by gender and accent: the flite voices are the clearest English
 * ones, so the most used names (alloy, ash, onyx, fable) get them; the rest spread over espeak's English voices.
 */
export const OPENAI_VOICES: Readonly<Record<OpenAiVoiceName, { voice: string; engines: Readonly<Partial<Record<EngineId, string>>> }>> = {
  alloy: { voice: 'flite-slt', engines: { flite: 'flite-slt', espeak: 'espeak-en-us-female-2' } },
  ash: { voice: 'flite-rms', engines: { flite: 'flite-rms', espeak: 'espeak-en-us-male-1' } },
  ballad: { voice: 'espeak-en-gb-male-1', engines: { flite: 'flite-awb', espeak: 'espeak-en-gb-male-1' } },
  coral: { voice: 'espeak-en-us-female-2', engines: { flite: 'flite-slt', espeak: 'espeak-en-us-female-2' } },
  echo: { voice: 'espeak-en-us-male-1', engines: { flite: 'flite-rms', espeak: 'espeak-en-us-male-1' } },
  fable: { voice: 'flite-awb', engines: { flite: 'flite-awb', espeak: 'espeak-en-gb-rp-male-1' } },
  nova: { voice: 'espeak-en-us-female-1', engines: { flite: 'flite-slt', espeak: 'espeak-en-us-female-1' } },
  onyx: { voice: 'flite-kal16', engines: { flite: 'flite-kal16', espeak: 'espeak-en-us-male-2' } },
  sage: { voice: 'espeak-en-gb-female-2', engines: { flite: 'flite-slt', espeak: 'espeak-en-gb-female-2' } },
  shimmer: { voice: 'espeak-en-gb-female-1', engines: { flite: 'flite-slt', espeak: 'espeak-en-gb-female-1' } },
  verse: { voice: 'espeak-en-gb-rp-male-1', engines: { flite: 'flite-rms', espeak: 'espeak-en-gb-rp-male-1' } },
  marin: { voice: 'flite-slt', engines: { flite: 'flite-slt', espeak: 'espeak-en-us-female-1' } },
  cedar: { voice: 'flite-rms', engines: { flite: 'flite-rms', espeak: 'espeak-en-us-male-2' } },
};

/** OpenAI's speech models (any dated snapshot of gpt-4o-mini-tts too); they all mean "the mapped voice". */
const OPENAI_MODEL = /^(tts-1|tts-1-hd|gpt-4o-mini-tts(-\d{4}-\d{2}-\d{2})?)$/;

export interface VoiceChoice {
  voiceId: string;
  /** Set when `model` named an engine: the voice must be one of its voices. */
  engine?: string;
}

function isOpenAiVoice(name: string): name is OpenAiVoiceName {
  return Object.hasOwn(OPENAI_VOICES, name);
}

/** Which of our voices an OpenAI-style (model, voice) pair means; throws a 400 for a model we do not know. */
export function chooseVoice(model: string, voice: string | { id: string }, engineIds: readonly string[]): VoiceChoice {
  const engine = engineIds.includes(model) ? (model as EngineId) : null;
  if (!engine && !OPENAI_MODEL.test(model)) {
    throw new AppError('validation', `model must be tts-1, tts-1-hd, gpt-4o-mini-tts or an engine id (${engineIds.join(', ')})`);
  }
  const name = typeof voice === 'string' ? voice : voice.id;
  const lower = name.toLowerCase();
  if (!isOpenAiVoice(lower)) return engine ? { voiceId: name, engine } : { voiceId: name };
  const mapped = OPENAI_VOICES[lower];
  if (!engine) return { voiceId: mapped.voice };
  const id = mapped.engines[engine];
  if (!id) throw new AppError('validation', `voice "${name}" has no ${engine} voice; pass one of our voice ids`);
  return { voiceId: id, engine };
}
