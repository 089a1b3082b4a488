import type { EngineId, VoiceSpec } from '../synth/voice-spec.ts';
import { Voice as VoiceSchema, type Voice as ApiVoice } from '../schemas/voices.ts';

export { GENDERS, VOICE_ID_PATTERN, type Gender, type VoiceSource } from '../schemas/voices.ts';

/** Opaque JSON: the genome module owns its shape; the catalog only stores and passes it on. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** The fields a client sees are the API schema's; the engine is one this server has. */
export interface PublicVoice extends Omit<ApiVoice, 'engine'> {
  engine: EngineId;
}

/** A voice as the service holds it: the public fields plus what only the server may see. */
export interface Voice extends PublicVoice {
  owner_id?: string;
  /** Internal: what the engine renders. */
  spec: VoiceSpec;
  /** Internal: the genes of an owned voice. */
  genome?: JsonValue;
}

/** The schema's fields, in its order: a field added there is shown without being listed again here. */
const PUBLIC_FIELDS = Object.keys(VoiceSchema.properties) as (keyof PublicVoice)[];

export function toPublicVoice(v: Voice): PublicVoice {
  const out: Partial<Record<keyof PublicVoice, unknown>> = {};
  for (const field of PUBLIC_FIELDS) {
    const value = v[field];
    // Arrays are copied: an answer must not share the catalogue's own (a caller may change what it got).
    if (value !== undefined) out[field] = Array.isArray(value) ? [...(value as unknown[])] : value;
  }
  return out as PublicVoice;
}
