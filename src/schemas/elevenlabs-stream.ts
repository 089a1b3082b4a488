// ElevenLabs' text-to-speech WebSockets (`/v1/text-to-speech/{voice_id}/stream-input` and `/multi-stream-input`):
// the frames as their clients send and read them. Client fields are snake_case, server fields camelCase, as on their
// wire. Pure: only TypeBox.
import { Type, type Static } from '@sinclair/typebox';
import { MAX_CONTEXT_ID_CHARS } from './stream.ts';
import { DEFAULT_ELEVENLABS_OUTPUT, ELEVENLABS_OUTPUT_NAMES, ElevenLabsVoiceSettings } from './elevenlabs.ts';

/** Their default and largest `inactivity_timeout`, in seconds. */
export const DEFAULT_INACTIVITY_SECONDS = 20;
export const MAX_INACTIVITY_SECONDS = 180;

/**
 * Contexts one multi-stream socket may have holding text or audio at once. Theirs is 5, which interrupted replies
 * still finishing exhaust; a context closed or interrupted here is freed at once, and contexts that hold nothing
 * (opened, or done speaking and never closed) do not count: past this many, the least recently used is forgotten.
 */
export const MAX_ELEVENLABS_CONTEXTS = 64;

const Flag = Type.Union([Type.Literal('true'), Type.Literal('false')]);

export const ElevenLabsStreamQuery = Type.Object(
  {
    output_format: Type.Optional(
      Type.String({
        description: `One of their output formats (${DEFAULT_ELEVENLABS_OUTPUT} by default): ${ELEVENLABS_OUTPUT_NAMES.join(', ')}`,
      }),
    ),
    model_id: Type.Optional(Type.String({ maxLength: 100, description: 'Accepted and ignored: the voice decides the engine' })),
    inactivity_timeout: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,3}$',
        description: `Seconds without a message (and nothing being spoken) before the socket closes, 1 to ${MAX_INACTIVITY_SECONDS}; ${DEFAULT_INACTIVITY_SECONDS} by default`,
      }),
    ),
    sync_alignment: Type.Optional(Flag),
    auto_mode: Type.Optional(Flag),
    enable_logging: Type.Optional(Type.String({ maxLength: 10, description: 'Accepted and ignored: nothing is logged but usage' })),
    authorization: Type.Optional(Type.String({ maxLength: 300, description: 'The API key, bare or as "Bearer <key>"' })),
  },
  // Their clients send more (language_code, enable_ssml_parsing, optimize_streaming_latency, ...): accepted, ignored.
  { additionalProperties: true },
);
export type ElevenLabsStreamQuery = Static<typeof ElevenLabsStreamQuery>;

export const ElevenLabsGenerationConfig = Type.Object(
  { chunk_length_schedule: Type.Optional(Type.Array(Type.Number(), { maxItems: 16 })) },
  { additionalProperties: true, description: 'Accepted; audio is made sentence by sentence here, as soon as each sentence is complete' },
);

/** Every client frame: an opening, a piece of text, a flush, a close (one shape with optional fields, as theirs). */
export const ElevenLabsClientMessage = Type.Object(
  {
    text: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    voice_settings: Type.Optional(Type.Union([ElevenLabsVoiceSettings, Type.Null()])),
    generation_config: Type.Optional(Type.Union([ElevenLabsGenerationConfig, Type.Null()])),
    try_trigger_generation: Type.Optional(Type.Boolean()),
    flush: Type.Optional(Type.Boolean()),
    xi_api_key: Type.Optional(Type.String({ maxLength: 300 })),
    'xi-api-key': Type.Optional(Type.String({ maxLength: 300 })),
    authorization: Type.Optional(Type.String({ maxLength: 300 })),
    context_id: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_CONTEXT_ID_CHARS })),
    contextId: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_CONTEXT_ID_CHARS })),
    close_context: Type.Optional(Type.Boolean()),
    close_socket: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);
export type ElevenLabsClientMessage = Static<typeof ElevenLabsClientMessage>;

export const ElevenLabsStreamAlignment = Type.Object(
  {
    chars: Type.Array(Type.String()),
    charStartTimesMs: Type.Array(Type.Number()),
    charDurationsMs: Type.Array(Type.Number()),
  },
  { description: 'The characters this audio message speaks; times in milliseconds from the start of this message’s audio' },
);
export type ElevenLabsStreamAlignment = Static<typeof ElevenLabsStreamAlignment>;

export const ElevenLabsAudioOutput = Type.Object({
  audio: Type.String({ description: 'The next bytes of the audio in output_format, base64' }),
  isFinal: Type.Null(),
  alignment: Type.Optional(ElevenLabsStreamAlignment),
  normalizedAlignment: Type.Optional(ElevenLabsStreamAlignment),
  contextId: Type.Optional(Type.String({ description: 'multi-stream-input: the context the audio belongs to' })),
});
export type ElevenLabsAudioOutput = Static<typeof ElevenLabsAudioOutput>;

export const ElevenLabsFinalOutput = Type.Object({
  isFinal: Type.Literal(true),
  contextId: Type.Optional(Type.String()),
});
export type ElevenLabsFinalOutput = Static<typeof ElevenLabsFinalOutput>;

/** Their error frame: a message, a short error name and the close code the socket (or, multi-stream, the context) ends with. */
export const ElevenLabsErrorOutput = Type.Object({
  message: Type.String(),
  error: Type.String({ description: 'invalid_input_message, input_timeout_exceeded, max_active_conversations, or one of our error codes' }),
  code: Type.Integer({ description: 'WebSocket close code' }),
  contextId: Type.Optional(Type.String()),
});
export type ElevenLabsErrorOutput = Static<typeof ElevenLabsErrorOutput>;

export const ElevenLabsServerMessage = Type.Union([ElevenLabsAudioOutput, ElevenLabsFinalOutput, ElevenLabsErrorOutput]);
export type ElevenLabsServerMessage = Static<typeof ElevenLabsServerMessage>;
