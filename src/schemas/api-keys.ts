// API keys: create, list, revoke, and the scopes that bound what a key may do. Pure: only TypeBox.
import { Type, type Static } from '@sinclair/typebox';
import { MAX_KEY_NAME_CHARS } from './field-limits.ts';

/**
 * What a key may do: `speech` synthesis on every door (HTTP, OpenAI, ElevenLabs, WebSocket, Wyoming, phonemize),
 * `voices` clone, breed and delete its owner's voices and manage their lexicons, `keys` create, list and revoke
 * keys, `usage` read the usage report. A signed-in session may do all of it.
 */
export const KEY_SCOPES = ['speech', 'voices', 'keys', 'usage'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/** Scopes a key gets when the request names none: all of them, so a key does what its owner can. */
export const DEFAULT_KEY_SCOPES: readonly KeyScope[] = KEY_SCOPES;

export const KeyScopeSchema = Type.Union(
  KEY_SCOPES.map((s) => Type.Literal(s)),
  {
    description:
      'speech: synthesis on every door; voices: clone, breed, delete voices, manage lexicons; keys: create, list, revoke keys; usage: read usage',
  },
);

export const KeyId = Type.String({ minLength: 1, maxLength: 64 });

export const CreateKeyBody = Type.Object(
  {
    name: Type.String({ maxLength: MAX_KEY_NAME_CHARS, description: 'A label of your choice' }),
    scopes: Type.Optional(
      Type.Array(KeyScopeSchema, {
        minItems: 1,
        maxItems: 16,
        description: `What the key may do; all of ${KEY_SCOPES.join(', ')} when absent. A key creating a key may give it only scopes it holds itself (else 403 insufficient_scope).`,
      }),
    ),
  },
  { examples: [{ name: 'laptop' }, { name: 'kiosk', scopes: ['speech'] }] },
);
export type CreateKeyBody = Static<typeof CreateKeyBody>;

export const CreatedApiKey = Type.Object(
  {
    key: Type.String({ description: 'The full key, shown once' }),
    id: Type.String(),
    name: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    scopes: Type.Array(KeyScopeSchema, { description: 'What the key may do' }),
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
  scopes: Type.Array(KeyScopeSchema, { description: 'What the key may do' }),
  parent_key_id: Type.Union([Type.String(), Type.Null()], {
    description: 'The key that minted this one (revoking it revokes this one too); null when minted from the dashboard',
  }),
});
export type ApiKey = Static<typeof ApiKey>;

export const KeyList = Type.Object({ keys: Type.Array(ApiKey) });
export type KeyList = Static<typeof KeyList>;

/** The key to revoke goes in the JSON body or the query string, as `key_id` or `id`. */
export const RevokeKeyQuery = Type.Object({ key_id: Type.Optional(KeyId), id: Type.Optional(KeyId) });
export type RevokeKeyQuery = Static<typeof RevokeKeyQuery>;
export const RevokeKeyBody = Type.Optional(
  Type.Union([Type.Object({ key_id: Type.Optional(KeyId), id: Type.Optional(KeyId) }), Type.Null()]),
);

export const RevokedKey = Type.Object({
  id: Type.String(),
  revoked: Type.Boolean(),
  also_revoked: Type.Array(Type.String(), { description: 'The live keys it had minted, directly or down the line, revoked with it' }),
});
export type RevokedKey = Static<typeof RevokedKey>;
