// Wyoming (Home Assistant) as the dashboard sees it: where the server listens, which key it bills, and the last
// requests it served. Pure: only TypeBox.
import { Type, type Static } from '@sinclair/typebox';

export const WyomingConnection = Type.Object({
  key_id: Type.String(),
  key_name: Type.String(),
  masked_key: Type.String(),
  connected_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'null when WYOMING_API_KEY decides' }),
  source: Type.Union([Type.Literal('dashboard'), Type.Literal('environment')], {
    description: 'environment: WYOMING_API_KEY, not changeable here',
  }),
  yours: Type.Boolean({ description: 'The key is one of the caller’s: only its owner may change or disconnect it' }),
});
export type WyomingConnection = Static<typeof WyomingConnection>;

export const WyomingRequest = Type.Object({
  at: Type.String({ format: 'date-time' }),
  client: Type.String({ description: 'The address the request came from (Home Assistant’s)' }),
  voice_id: Type.Union([Type.String(), Type.Null()]),
  characters: Type.Integer(),
  audio_seconds: Type.Number(),
  outcome: Type.String({ description: '`spoken`, or the error code the request was answered with (e.g. `wyoming_not_connected`)' }),
});
export type WyomingRequest = Static<typeof WyomingRequest>;

export const WyomingStatus = Type.Object({
  enabled: Type.Boolean({ description: 'false: WYOMING_PORT is off' }),
  listening: Type.Boolean({ description: 'This node accepts Wyoming connections' }),
  problem: Type.Union([Type.String(), Type.Null()], { description: 'Why this node does not listen (its port taken, say)' }),
  port: Type.Union([Type.Integer(), Type.Null()]),
  bind_host: Type.Union([Type.String(), Type.Null()], { description: 'WYOMING_HOST' }),
  local_only: Type.Boolean({ description: 'Bound to loopback: only a Home Assistant on this machine can reach it' }),
  hosts: Type.Array(Type.String(), { description: 'Addresses to enter as Home Assistant’s Host, most likely first' }),
  connection: Type.Union([WyomingConnection, Type.Null()], { description: 'The key Wyoming bills; null until one is connected' }),
  requests: Type.Array(WyomingRequest, { description: 'The newest requests it served (or refused), yours and unbilled ones only' }),
});
export type WyomingStatus = Static<typeof WyomingStatus>;

export const ConnectWyomingBody = Type.Object(
  { key_id: Type.String({ minLength: 1, maxLength: 64, description: 'One of your active keys: Wyoming’s use is billed to it' }) },
  { examples: [{ key_id: '4f3a9c2e1b7d' }] },
);
export type ConnectWyomingBody = Static<typeof ConnectWyomingBody>;
