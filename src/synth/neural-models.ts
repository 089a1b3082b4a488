// The neural models found in VOICES_DIR, as plain data. The main thread scans the directory (at start, then
// whenever it changes) and every task that speaks a neural voice carries the models it names, so a worker
// resolves a VoiceSpec against the same files as the main thread did, however recently they were added.

export interface PiperSpeaker {
  name: string;
  id: number;
}

export interface PiperModel {
  /** The file stem: `en_US-lessac-medium` for `en_US-lessac-medium.onnx`. */
  key: string;
  onnxPath: string;
  /** Changes when the files change (size and modification time): a replaced model is loaded anew. */
  revision: string;
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
  /** Changes when either file changes (size and modification time). */
  revision: string;
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

/**
 * Adds these models to the ones this thread knows, replacing any of the same key (a worker, from the models a
 * task carries). Models not named stay: another task may still use them until retainNeuralModels drops them.
 */
export function mergeNeuralModels(models: NeuralModels): void {
  const current = state();
  let changed = false;
  const piper = new Map(current.piper);
  for (const m of models.piper) {
    if (piper.get(m.key)?.revision === m.revision && piper.get(m.key)?.onnxPath === m.onnxPath) continue;
    piper.set(m.key, m);
    changed = true;
  }
  const kokoro = new Map(current.kokoro);
  for (const b of models.kokoro) {
    const had = kokoro.get(b.key);
    if (had?.revision === b.revision && had.onnxPath === b.onnxPath && had.voices.length === b.voices.length) continue;
    kokoro.set(b.key, b);
    changed = true;
  }
  if (changed) installNeuralModels({ piper: [...piper.values()], kokoro: [...kokoro.values()] });
}

/** Forgets every model whose key is not in `keys` (removed from VOICES_DIR). */
export function retainNeuralModels(keys: ReadonlySet<string>): void {
  const { models } = state();
  const piper = models.piper.filter((m) => keys.has(m.key));
  const kokoro = models.kokoro.filter((b) => keys.has(b.key));
  if (piper.length !== models.piper.length || kokoro.length !== models.kokoro.length) installNeuralModels({ piper, kokoro });
}

/** The files (path and revision) of the models this thread knows: what its sessions may keep. */
export function neuralFiles(): Set<string> {
  const { models } = state();
  const files = new Set<string>();
  for (const m of models.piper) files.add(fileKey(m.onnxPath, m.revision));
  for (const b of models.kokoro) {
    files.add(fileKey(b.onnxPath, b.revision));
    files.add(fileKey(b.voicesPath, b.revision));
  }
  return files;
}

/** How a loaded file is cached: a file replaced under the same name is a new entry. */
export function fileKey(path: string, revision: string): string {
  return `${revision}\u0000${path}`;
}

/** The models (at most one each) that these voice specs use, for a task to carry to its worker. */
export function neuralModelsFor(specs: readonly { engine: string; base: string }[]): NeuralModels | undefined {
  let out: NeuralModels | undefined;
  for (const spec of specs) {
    if (!Object.hasOwn(MODEL_OF, spec.engine)) continue;
    const engine = spec.engine as keyof NeuralModels;
    const model = MODEL_OF[engine](spec.base);
    if (model) addModel((out ??= { piper: [], kokoro: [] }), engine, model);
  }
  return out;
}

/** The model file a base voice of each neural engine (the keys of NeuralModels) renders with. */
const MODEL_OF: { readonly [E in keyof NeuralModels]: (base: string) => NeuralModels[E][number] | undefined } = {
  piper: (base) => findPiperVoice(base)?.model,
  kokoro(base) {
    const slash = base.indexOf('/');
    return state().kokoro.get(slash < 0 ? base : base.slice(0, slash));
  },
};

function addModel<E extends keyof NeuralModels>(out: NeuralModels, engine: E, model: NeuralModels[E][number]): void {
  const list = out[engine] as NeuralModels[E][number][];
  if (!list.includes(model)) list.push(model);
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
