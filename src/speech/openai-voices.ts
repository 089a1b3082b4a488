import { AppError } from '../errors.ts';
import { OPENAI_VOICE_NAMES, type OpenAiVoiceName } from '../schemas/speech.ts';
import type { EngineId } from '../synth/voice-spec.ts';

/**
 * OpenAI's voice names onto ours, per engine: `model` set to an engine id picks from that engine's row. Chosen by
 * gender and accent.
 */
type NameMap = Readonly<Record<OpenAiVoiceName, string>>;
export const OPENAI_VOICES: Readonly<Record<'flite' | 'espeak', NameMap> & Partial<Record<EngineId, NameMap>>> = {
  flite: {
    alloy: 'flite-slt',
    ash: 'flite-rms',
    ballad: 'flite-awb',
    coral: 'flite-slt',
    echo: 'flite-rms',
    fable: 'flite-awb',
    nova: 'flite-slt',
    onyx: 'flite-kal16',
    sage: 'flite-slt',
    shimmer: 'flite-slt',
    verse: 'flite-rms',
    marin: 'flite-slt',
    cedar: 'flite-rms',
  },
  espeak: {
    alloy: 'espeak-en-us-female-2',
    ash: 'espeak-en-us-male-1',
    ballad: 'espeak-en-gb-male-1',
    coral: 'espeak-en-us-female-2',
    echo: 'espeak-en-us-male-1',
    fable: 'espeak-en-gb-rp-male-1',
    nova: 'espeak-en-us-female-1',
    onyx: 'espeak-en-us-male-2',
    sage: 'espeak-en-gb-female-2',
    shimmer: 'espeak-en-gb-female-1',
    verse: 'espeak-en-gb-rp-male-1',
    marin: 'espeak-en-us-female-1',
    cedar: 'espeak-en-us-male-2',
  },
};

/**
 * With OpenAI's own models, the names whose voice is flite's: its voices are the clearest English ones, so the most
 * used names (alloy, ash, onyx, fable) get them; the rest spread over espeak's English voices.
 */
const FLITE_NAMES: ReadonlySet<OpenAiVoiceName> = new Set(['alloy', 'ash', 'fable', 'onyx', 'marin', 'cedar']);

/** OpenAI's speech models (any dated snapshot of gpt-4o-mini-tts too); they all mean "the mapped voice". */
const OPENAI_MODEL = /^(tts-1|tts-1-hd|gpt-4o-mini-tts(-\d{4}-\d{2}-\d{2})?)$/;

export interface VoiceChoice {
  voiceId: string;
  /** Set when `model` named an engine: the voice must be one of its voices. */
  engine?: string;
}

function isOpenAiVoice(name: string): name is OpenAiVoiceName {
  return (OPENAI_VOICE_NAMES as readonly string[]).includes(name);
}

/** What the choice needs to know of the installed voices. */
export interface VoiceCatalog {
  engineIds: readonly string[];
  /**
   * The natural voice OpenAI's name stands for (the gender of built-in voice `builtinId`), one of `engine`'s when
   * given, if any is installed.
   */
  naturalFor(name: OpenAiVoiceName, builtinId: string, engine?: string): { id: string } | undefined;
}

/** Which of our voices an OpenAI-style (model, voice) pair means; throws a 400 for a model we do not know. */
export function chooseVoice(model: string, voice: string | { id: string }, catalog: VoiceCatalog): VoiceChoice {
  const { engineIds } = catalog;
  const engine = engineIds.includes(model) ? (model as EngineId) : null;
  if (!engine && !OPENAI_MODEL.test(model)) {
    throw new AppError('validation', `model must be tts-1, tts-1-hd, gpt-4o-mini-tts or an engine id (${engineIds.join(', ')})`);
  }
  const name = typeof voice === 'string' ? voice : voice.id;
  const lower = name.toLowerCase();
  // The voice wins: clients such as Open WebUI offer every model with every voice, so a voice id of ours is
  // spoken whichever model came with it. The model is a preference for OpenAI's names only.
  if (!isOpenAiVoice(lower)) return { voiceId: name };
  const id = engine ? OPENAI_VOICES[engine]?.[lower] : undefined;
  if (engine && id) return { voiceId: id, engine };
  const voiceId = OPENAI_VOICES[FLITE_NAMES.has(lower) ? 'flite' : 'espeak'][lower];
  // OpenAI's models, and an engine with no row of its own (piper, kokoro), speak an installed natural voice of the
  // same gender (see openai-natural.ts); the built-in voice otherwise.
  return { voiceId: catalog.naturalFor(lower, voiceId, engine ?? undefined)?.id ?? voiceId };
}
