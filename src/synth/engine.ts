import type { EngineId, VoiceControls, VoiceSpec } from './voice-spec.ts';

/** A base voice an engine ships, as the catalog needs to list it. */
export interface EngineVoiceInfo {
  /** What VoiceSpec.base takes. */
  base: string;
  /** The engine's own display name. */
  name: string;
  /** Language tags the voice speaks, most preferred first (espeak's own codes, lower case). */
  languages: readonly string[];
  gender?: 'female' | 'male';
  /** Controls this voice honours when fewer than the engine's (flite's rms has a fixed pitch model). */
  controls?: readonly (keyof VoiceControls)[];
}

export interface EngineCapabilities {
  /** VoiceSpec.controls fields the engine renders natively; others are ignored. */
  controls: readonly (keyof VoiceControls)[];
  /** The request speed range that changes the output; speeds outside it are clamped (no time-stretching). */
  speedRange: readonly [min: number, max: number];
  /** The phoneme set its words are reported in by POST /v1/phonemize. */
  phonemes: 'ipa' | 'arpabet';
  /** It reads phonemes (SSML <phoneme>, lexicon phoneme rules) as espeak's [[...]]; otherwise it says the written word. */
  phonemeInput: boolean;
  /**
   * How its voices breed: `genome` through the formant genome's genes (those whose control it renders),
   * `style` by blending style vectors, `none` not at all (a fixed model with no genes to mix).
   */
  breeding: 'genome' | 'style' | 'none';
  /** Its voices sound natural (neural): the default voice and OpenAI's names come from these. */
  natural: boolean;
}

/** How an engine's pitch control relates to the pitch a listener hears. */
export interface EnginePitch {
  /** The heard median pitch of a base voice at its own settings, in Hz, if known. */
  naturalHz(base: string): number | undefined;
  /** Whether the voice's pitch moves at all with the control. */
  controllable(base: string): boolean;
  /** The pitchHz control value heard as `hz`. */
  controlFor(base: string, hz: number): number;
}

/** Metadata only: importing it never loads an engine. */
export interface EngineInfo {
  id: EngineId;
  label: string;
  description: string;
  /** Every language tag any of its voices speaks. */
  languages: readonly string[];
  /** Usual native rate; a chunk states its own rate (flite's kal is 8 kHz). */
  sampleRate: number;
  capabilities: EngineCapabilities;
  voices: readonly EngineVoiceInfo[];
  /** Shipped variant names VoiceSpec.variant accepts (empty when the engine has none). */
  variants: readonly string[];
  /** Its pitch model, on engines with a pitch control. */
  pitch?: EnginePitch;
  /** Higher is better, across engines: how good a voice of this engine sounds (base and catalog tags). */
  quality(voice: { base: string; tags: readonly string[] }): number;
}

export interface SynthesisOptions {
  /** Multiplier of the voice's normal rate (1 = normal); VoiceSpec.controls.rate multiplies on top. */
  speed: number;
  /** Aborting ends the iteration early without an error. */
  signal?: AbortSignal;
  /**
   * Called by an engine from inside long synchronous work (between its own chunks), so the host can
   * drain control messages (e.g. receiveMessageOnPort) and abort `signal` while the event loop is busy.
   */
  checkpoint?: () => void;
  /**
   * Given by a host that can send audio while an engine is still inside one synchronous render (a wasm call
   * that reports its audio through a callback): the engine hands each chunk here the moment it exists and
   * does not yield it, so the first samples leave while the rest of the sentence renders. Without it, the
   * engine yields its chunks as usual.
   */
  stream?: (chunk: EngineChunk) => void;
}

/** A word of the input text and when it starts in the audio of one synthesize() call. */
export interface EngineWord {
  text: string;
  /** UTF-16 offset and length of the word in the text given to synthesize(). */
  offset: number;
  length: number;
  /** Seconds from the start of this call's audio. */
  time: number;
  /** When the word's last sound ends, if the engine knows (otherwise the next word's start is used). */
  end?: number;
}

export interface EngineChunk {
  /** Mono samples in [-1, 1] at `sampleRate`. */
  samples: Float32Array;
  sampleRate: number;
  words?: EngineWord[];
}

export interface Engine {
  readonly info: EngineInfo;
  /**
   * Renders one piece of text (a sentence). Breaking the iteration or aborting the signal stops the work.
   * Throws on an unknown base voice or variant.
   */
  synthesize(text: string, voice: VoiceSpec, options: SynthesisOptions): AsyncIterable<EngineChunk>;
  /** Runs a short synthesis so the first real request does not pay for JIT warm-up. */
  warmUp(): Promise<void>;
}

/** What an engine module (src/synth/engines/<id>/engine.ts) exports; only worker threads import it. */
export interface EngineModule {
  createEngine(): Promise<Engine>;
}

export class UnknownVoiceError extends Error {
  constructor(engine: EngineId, what: string) {
    super(`${engine}: unknown voice ${JSON.stringify(what)}`);
    this.name = 'UnknownVoiceError';
  }
}

/** The effective speaking-rate multiplier of a request and a voice. */
export function rateOf(voice: VoiceSpec, speed: number): number {
  const r = speed * (voice.controls?.rate ?? 1);
  if (!Number.isFinite(r) || r <= 0) throw new RangeError(`invalid speed ${speed}`);
  return r;
}

/** The rate an engine renders: rateOf() within the engine's declared speed range. */
export function engineRate(info: EngineInfo, voice: VoiceSpec, speed: number): number {
  const [min, max] = info.capabilities.speedRange;
  return Math.min(max, Math.max(min, rateOf(voice, speed)));
}
