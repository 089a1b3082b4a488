/** Shapes of the service's JSON answers the app relies on (see README and ../shared/SPEC.md). */
export interface User {
  id: string;
  email: string;
  plan: string;
}

export interface ApiKeySummary {
  id: string;
  name: string;
  masked_key: string;
  created_at: string;
  last_used: string | null;
}

export interface CreatedKey {
  key: string;
  id: string;
  name: string;
  created_at: string;
}

export type Gender = 'female' | 'male' | 'neutral';
export type VoiceSource = 'builtin' | 'clone' | 'breed';

export interface Voice {
  id: string;
  name: string;
  language: string;
  language_name: string;
  gender: Gender;
  engine: string;
  source: VoiceSource;
  description: string;
  tags: string[];
  parents?: string[];
  created_at?: string;
}

export interface UsageDay {
  day: string;
  characters: number;
  requests: number;
}

export interface UsageKey {
  key_id: string | null;
  name: string | null;
  characters: number;
  requests: number;
}

export interface Usage {
  plan: string;
  days: UsageDay[];
  keys: UsageKey[];
}

export const FORMATS = ['mp3', 'wav', 'opus', 'flac', 'pcm', 'mulaw'] as const;
export type AudioFormat = (typeof FORMATS)[number];
