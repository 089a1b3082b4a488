// The account's usage report. Pure: only TypeBox.
import { Type, type Static } from '@sinclair/typebox';

export const MAX_USAGE_DAYS = 366;
export const DEFAULT_USAGE_DAYS = 30;

export const UsageQuery = Type.Object({
  days: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: `1 to ${MAX_USAGE_DAYS}, ${DEFAULT_USAGE_DAYS} by default` })),
});

export const UsageDay = Type.Object({ day: Type.String(), characters: Type.Number(), requests: Type.Number() });
export type UsageDay = Static<typeof UsageDay>;

export const UsageKey = Type.Object({ key_id: Type.Union([Type.String(), Type.Null()]), name: Type.String(), characters: Type.Number(), requests: Type.Number() });
export type UsageKey = Static<typeof UsageKey>;

export const UsageReport = Type.Object({
  plan: Type.String(),
  since: Type.String({ description: 'First UTC day counted, YYYY-MM-DD' }),
  days: Type.Array(UsageDay),
  keys: Type.Array(UsageKey),
});
export type UsageReport = Static<typeof UsageReport>;
