/** Engine ids; the `engine` field of the stream protocol names them. */
export type EngineId = 'espeak' | 'flite' | 'piper' | 'kokoro';

/** Engines whose voices come from model files in VOICES_DIR rather than from the package. */
export const NEURAL_ENGINE_IDS = ['piper', 'kokoro'] as const satisfies readonly EngineId[];
export type NeuralEngineId = (typeof NEURAL_ENGINE_IDS)[number];

/**
 * What an engine needs to render one voice. Catalog voices, clones and bred voices all reduce to this,
 * so the worker never needs to know where a voice came from.
 */
export interface VoiceSpec {
  engine: EngineId;
  /**
   * espeak: a language voice name as espeak-ng lists it ('en-gb', 'de', 'cmn'); flite: 'slt' | 'awb' | 'rms' | 'kal16' | 'kal';
   * piper: the model's file stem, plus `/<speaker>` for a multi-speaker model; kokoro: `<bundle>/<voice>` ('kokoro-v1.0/af_heart').
   */
  base: string;
  /** espeak only: a variant shipped with espeak-ng ('f1', 'm3', ...), used when no controls override it. */
  variant?: string;
  controls?: VoiceControls;
  /** kokoro only: a bred voice's style vector, a per-dimension blend of the bundle's voices (replaces base's own). */
  style?: StyleMix;
}

/**
 * A Kokoro style vector as a blend: dimension i of every row is the sum over k of weights[k][i] x (voice k's
 * value). Each dimension's weights are >= 0 and sum to 1, so the blend lies between the voices it mixes.
 */
export interface StyleMix {
  voices: string[];
  /** One row of 256 weights per voice. */
  weights: number[][];
}

/** Continuous controls in absolute units; an absent field keeps the engine's (or variant's) own value. */
export interface VoiceControls {
  /** Base pitch in Hz (espeak variant `pitch`, flite `int_f0_target_mean`). */
  pitchHz?: number;
  /** Pitch range in Hz above the base (espeak only). */
  pitchRangeHz?: number;
  /** Speaking-rate multiplier applied on top of the request's speed (1 = the voice's normal rate). */
  rate?: number;
  /** Formant scale in percent, 100 = unchanged (espeak only). */
  formantScale?: number;
  /** Breathiness 0..100 (espeak only). */
  breath?: number;
  /** Pitch flutter 0..100 (espeak only). */
  flutter?: number;
  /** Roughness 0..100 (espeak only). */
  roughness?: number;
}
