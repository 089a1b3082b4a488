import type { EngineId, VoiceSpec } from '../synth/voice-spec.ts';

import type { Gender, VoiceSource } from '../schemas/voices.ts';

export { GENDERS, type Gender, type VoiceSource } from '../schemas/voices.ts';

/** Opaque JSON: the genome module owns its shape; the catalog only stores and passes it on. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A voice as the service holds it: the public fields plus what only the server may see. */
export interface Voice {
  /** Stable and URL-safe (`[a-z0-9-]`), e.g. `espeak-de-female-1`, `flite-slt`. */
  id: string;
  name: string;
  /** BCP 47 tag, e.g. `en-US`, `de-DE`, `cmn`. */
  language: string;
  /** English name of the language, e.g. "German". */
  language_name: string;
  gender: Gender;
  engine: EngineId;
  source: VoiceSource;
  description: string;
  /** Accent and region words, the language's native name, style words. */
  tags: string[];
  /** Ids of the two parents of a bred voice. */
  parents?: string[];
  owner_id?: string;
  /** ISO 8601 UTC. */
  created_at?: string;
  /** Internal: what the engine renders. */
  spec: VoiceSpec;
  /** Internal: the genes of an owned voice. */
  genome?: JsonValue;
}

export type PublicVoice = Omit<Voice, 'spec' | 'genome' | 'owner_id'>;

export function toPublicVoice(v: Voice): PublicVoice {
  const out: PublicVoice = {
    id: v.id,
    name: v.name,
    language: v.language,
    language_name: v.language_name,
    gender: v.gender,
    engine: v.engine,
    source: v.source,
    description: v.description,
    tags: [...v.tags],
  };
  if (v.parents !== undefined) out.parents = [...v.parents];
  if (v.created_at !== undefined) out.created_at = v.created_at;
  return out;
}

export const VOICE_ID_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
