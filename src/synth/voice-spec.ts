/** Engine ids; the `engine` field of the stream protocol names them. */
export type EngineId = 'espeak' | 'flite';

/**
 * What an engine needs to render one voice. Catalog voices, clones and bred voices all reduce to this,
 * so the worker never needs to know where a voice came from.
 */
export interface VoiceSpec {
  engine: EngineId;
  /** espeak: a language voice name as espeak-ng lists it ('en-gb', 'de', 'cmn'); flite: 'slt' | 'awb' | 'rms' | 'kal16' | 'kal'. */
  base: string;
  /** espeak only: a variant shipped with espeak-ng ('f1', 'm3', ...), used when no controls override it. */
  variant?: string;
  controls?: VoiceControls;
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
