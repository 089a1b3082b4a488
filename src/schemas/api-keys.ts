// API keys: create, list, revoke. Pure: only TypeBox.
import { Type, type Static } from '@sinclair/typebox';
import { MAX_KEY_NAME_CHARS } from './field-limits.ts';

export const KeyId = Type.String({ minLength: 1, maxLength: 64 });

export const CreateKeyBody = Type.Object({ name: Type.String({ maxLength: MAX_KEY_NAME_CHARS, description: 'A label of your choice' }) }, { examples: [{ name: 'laptop' }] });
export type CreateKeyBody = Static<typeof CreateKeyBody>;

export const CreatedApiKey = Type.Object(
  {
    key: Type.String({ description: 'The full key, shown once' }),
    id: Type.String(),
    name: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
  },
  { description: 'The new key' },
);
export type CreatedApiKey = Static<typeof CreatedApiKey>;

export const ApiKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  masked_key: Type.String({ description: 'The prefix and last characters, the middle hidden' }),
  created_at: Type.String({ format: 'date-time' }),
  last_used: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type ApiKey = Static<typeof ApiKey>;

export const KeyList = Type.Object({ keys: Type.Array(ApiKey) });
export type KeyList = Static<typeof KeyList>;

/** `key_id` goes in the JSON body or the query string. */
export const RevokeKeyQuery = Type.Object({ key_id: Type.Optional(KeyId) });
export const RevokeKeyBody = Type.Optional(Type.Union([Type.Object({ key_id: Type.Optional(KeyId) }), Type.Null()]));

export const RevokedKey = Type.Object({ id: Type.String(), revoked: Type.Boolean() });
export type RevokedKey = Static<typeof RevokedKey>;
