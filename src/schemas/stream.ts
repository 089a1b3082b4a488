// The WebSocket stream's messages (SPEC §6, with the additions id, speed, words, cancel and error). Pure: only
// TypeBox, so the client SDK and the dashboard can import it.
import { Type, type Static } from '@sinclair/typebox';
import { Speed, STREAM_SAMPLE_RATE, VoiceId, WordTiming } from './speech.ts';

/** The subprotocol a browser names beside its key when it authenticates through Sec-WebSocket-Protocol. */
export const STREAM_SUBPROTOCOL = 'voxsmith.v1';
/** The largest text frame the server reads; a larger one closes the connection with 1009. */
export const MAX_FRAME_BYTES = 64 * 1024;
/** Bytes per sample of the stream's audio (float32). */
export const STREAM_BYTES_PER_SAMPLE = 4;

export const MAX_MESSAGE_ID_CHARS = 128;
/** A client's own label for a request, echoed on every message about it. */
export const MessageId = Type.String({ minLength: 1, maxLength: MAX_MESSAGE_ID_CHARS });

/** Speaks `text`; requests on one connection run in order, each answered by audio chunks then done (or error). */
export const SynthesizeMessage = Type.Object(
  {
    type: Type.Literal('synthesize'),
    text: Type.String({ description: 'Text to speak (up to MAX_TEXT_CHARS characters)' }),
    voice_id: Type.Optional(VoiceId),
    engine: Type.Optional(Type.String({ maxLength: 100, description: 'When given, the voice must be spoken by this engine' })),
    speed: Type.Optional(Speed),
    id: Type.Optional(MessageId),
  },
  { description: 'Speak a text; answered by audio chunks, then done (or error)' },
);
export type SynthesizeMessage = Static<typeof SynthesizeMessage>;

/** Stops the request with this id (queued or running), or the running one when no id is given. */
export const CancelMessage = Type.Object({ type: Type.Literal('cancel'), id: Type.Optional(MessageId) }, { description: 'Stop a request' });
export type CancelMessage = Static<typeof CancelMessage>;

export const ClientMessage = Type.Union([SynthesizeMessage, CancelMessage]);
export type ClientMessage = Static<typeof ClientMessage>;
export const CLIENT_MESSAGE_TYPES = ['synthesize', 'cancel'] as const;

export const AudioMessage = Type.Object({
  type: Type.Literal('audio'),
  audio: Type.String({ description: `base64 float32 LE PCM, ${STREAM_SAMPLE_RATE} Hz mono` }),
  id: Type.Optional(Type.String()),
  words: Type.Optional(Type.Array(WordTiming)),
});
export type AudioMessage = Static<typeof AudioMessage>;

export const DoneMessage = Type.Object({
  type: Type.Literal('done'),
  id: Type.Optional(Type.String()),
  samples: Type.Integer({ minimum: 0 }),
  seconds: Type.Number({ minimum: 0 }),
  cancelled: Type.Optional(Type.Boolean()),
});
export type DoneMessage = Static<typeof DoneMessage>;

/** A failure of one request (or of one frame); the connection stays open. */
export const ErrorMessage = Type.Object({
  type: Type.Literal('error'),
  error: Type.String(),
  code: Type.String(),
  id: Type.Optional(Type.String()),
  retry_after: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type ErrorMessage = Static<typeof ErrorMessage>;

export const ServerMessage = Type.Union([AudioMessage, DoneMessage, ErrorMessage]);
export type ServerMessage = Static<typeof ServerMessage>;
