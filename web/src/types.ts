// The API's shapes come from the SDK's own declarations, so the dashboard and the SDK cannot drift apart.
import type { UsageReport } from '../../client/types.ts';

export type { User, Gender, VoiceSource, Voice } from '../../client/types.ts';
export type { ApiKey as ApiKeySummary, CreatedApiKey as CreatedKey, UsageReport as Usage } from '../../client/types.ts';

export type UsageDay = UsageReport['days'][number];
export type UsageKey = UsageReport['keys'][number];

export const FORMATS = ['mp3', 'wav', 'opus', 'flac', 'pcm', 'mulaw'] as const;
export type AudioFormat = (typeof FORMATS)[number];
