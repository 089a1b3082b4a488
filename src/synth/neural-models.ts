// The neural models found in VOICES_DIR, as plain data: the main thread scans the directory once and hands
// the result to every worker (workerData), so both sides resolve a VoiceSpec against the same files.

export interface PiperSpeaker {
  name: string;
  id: number;
}

export interface PiperModel {
  /** The file stem: `en_US-lessac-medium` for `en_US-lessac-medium.onnx`. */
  key: string;
  onnxPath: string;
  sampleRate: number;
  /** espeak-ng voice for phonemes, e.g. `en-us`. */
  espeakVoice: string;
  phonemeIdMap: Record<string, number[]>;
  noiseScale: number;
  lengthScale: number;
  noiseW: number;
  /** Empty for a single-speaker model. */
  speakers: PiperSpeaker[];
  /** BCP 47, e.g. `en-US`. */
  language: string;
  languageName: string;
  region: string | null;
  dataset: string;
  quality: string | null;
}

export interface KokoroBundle {
  /** The model's file stem: `kokoro-v1.0`. */
  key: string;
  onnxPath: string;
  voicesPath: string;
  /** Voice names in the voices file, e.g. `af_heart`. */
  voices: string[];
}

export interface NeuralModels {
  piper: PiperModel[];
  kokoro: KokoroBundle[];
}

export const NO_NEURAL_MODELS: NeuralModels = { piper: [], kokoro: [] };

interface Installed {
  models: NeuralModels;
  piper: Map<string, PiperModel>;
  kokoro: Map<string, KokoroBundle>;
}

// Kept on the thread's global object, not in module state: in a worker on Node 20 the static imports load
// through tsx's require hook and the engines through import(), which gives this module two instances.
const SLOT = Symbol.for('voxsmith.neural-models');
type Holder = { [SLOT]?: Installed };

function state(): Installed {
  return (globalThis as Holder)[SLOT] ?? { models: NO_NEURAL_MODELS, piper: new Map(), kokoro: new Map() };
}

/** Makes these models the ones this thread resolves voices against (main thread at start; workers from workerData). */
export function installNeuralModels(models: NeuralModels): void {
  (globalThis as Holder)[SLOT] = {
    models,
    piper: new Map(models.piper.map((m) => [m.key, m])),
    kokoro: new Map(models.kokoro.map((b) => [b.key, b])),
  };
}

export function neuralModels(): NeuralModels {
  return state().models;
}

/** `key` or `key/speaker` → the model and speaker id (undefined for an unknown base or speaker). */
export function findPiperVoice(base: string): { model: PiperModel; speaker: PiperSpeaker | null } | undefined {
  const slash = base.indexOf('/');
  const model = state().piper.get(slash < 0 ? base : base.slice(0, slash));
  if (!model) return undefined;
  if (model.speakers.length === 0) return slash < 0 ? { model, speaker: null } : undefined;
  if (slash < 0) return undefined;
  const name = base.slice(slash + 1);
  const speaker = model.speakers.find((s) => s.name === name);
  return speaker ? { model, speaker } : undefined;
}

/** `bundle/voice` → the bundle and voice name. */
export function findKokoroVoice(base: string): { bundle: KokoroBundle; voice: string } | undefined {
  const slash = base.indexOf('/');
  if (slash < 0) return undefined;
  const bundle = state().kokoro.get(base.slice(0, slash));
  const voice = base.slice(slash + 1);
  return bundle && bundle.voices.includes(voice) ? { bundle, voice } : undefined;
}

/** Kokoro voice names start with a language letter and a gender letter (`af_heart`: American English, female). */
const KOKORO_LANGUAGES: Readonly<Record<string, { espeak: string; tag: string; name: string }>> = {
  a: { espeak: 'en-us', tag: 'en-US', name: 'English' },
  b: { espeak: 'en-gb', tag: 'en-GB', name: 'English' },
  e: { espeak: 'es', tag: 'es', name: 'Spanish' },
  f: { espeak: 'fr-fr', tag: 'fr-FR', name: 'French' },
  h: { espeak: 'hi', tag: 'hi', name: 'Hindi' },
  i: { espeak: 'it', tag: 'it', name: 'Italian' },
  j: { espeak: 'ja', tag: 'ja', name: 'Japanese' },
  p: { espeak: 'pt-br', tag: 'pt-BR', name: 'Portuguese' },
  z: { espeak: 'cmn', tag: 'cmn', name: 'Chinese' },
};

export function kokoroLanguage(voice: string): { espeak: string; tag: string; name: string } | undefined {
  return KOKORO_LANGUAGES[voice[0] ?? ''];
}

export function kokoroGender(voice: string): 'female' | 'male' | undefined {
  return voice[1] === 'f' ? 'female' : voice[1] === 'm' ? 'male' : undefined;
}
