// The account's usage report. Pure: only TypeBox.
import { Type, type Static } from '@sinclair/typebox';

export const MAX_USAGE_DAYS = 366;
export const DEFAULT_USAGE_DAYS = 30;

const Day = (description: string) => Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description, examples: ['2026-11-01'] });

export const UsageQuery = Type.Object({
  days: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,3}$',
      description: `The last N UTC days, today included: 1 to ${MAX_USAGE_DAYS}, ${DEFAULT_USAGE_DAYS} by default`,
    }),
  ),
  from: Type.Optional(Day(`First UTC day, YYYY-MM-DD (with \`to\`, instead of \`days\`; at most ${MAX_USAGE_DAYS} days)`)),
  to: Type.Optional(Day('Last UTC day, YYYY-MM-DD, today by default')),
  format: Type.Optional(
    Type.Union([Type.Literal('json'), Type.Literal('csv')], {
      description: 'json (default), or csv: one row per day and key (day,key_id,key_name,revoked,characters,requests), as a download',
    }),
  ),
});
export type UsageQuery = Static<typeof UsageQuery>;

export const UsageDay = Type.Object({ day: Type.String(), characters: Type.Number(), requests: Type.Number() });
export type UsageDay = Static<typeof UsageDay>;

export const UsageKey = Type.Object({
  key_id: Type.Union([Type.String(), Type.Null()], { description: 'null: the dashboard (signed-in session)' }),
  name: Type.String(),
  revoked: Type.Boolean({ description: 'The key has been revoked since (its past use still counts)' }),
  characters: Type.Number(),
  requests: Type.Number(),
});
export type UsageKey = Static<typeof UsageKey>;

export const UsageReport = Type.Object({
  plan: Type.String({ description: 'The account’s plan label (every account is on "free"; no quota is attached to it)' }),
  since: Type.String({ description: 'First UTC day counted, YYYY-MM-DD' }),
  until: Type.String({ description: 'Last UTC day counted, YYYY-MM-DD' }),
  days: Type.Array(UsageDay),
  keys: Type.Array(UsageKey),
});
export type UsageReport = Static<typeof UsageReport>;
