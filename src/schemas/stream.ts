// The WebSocket stream's messages: synthesize requests and their audio, with ids, speed, word timings, cancel
// and errors, and input streaming (context_id, continue, flush). Pure: only TypeBox, so the client SDK and the dashboard can import it.
import { Type, type Static } from '@sinclair/typebox';
import { LexiconNames } from './lexicons.ts';
import { MarkTiming, Speed, STREAM_SAMPLE_RATE, VoiceId, WordTiming } from './speech.ts';

/** The subprotocol a browser names beside its key when it authenticates through Sec-WebSocket-Protocol. */
export const STREAM_SUBPROTOCOL = 'voxsmith.v1';
/** The largest text frame the server reads; a larger one closes the connection with 1009. */
export const MAX_FRAME_BYTES = 64 * 1024;
/** Bytes per sample of the stream's audio (float32). */
export const STREAM_BYTES_PER_SAMPLE = 4;

export const MAX_MESSAGE_ID_CHARS = 128;
/** A client's own label for a request, echoed on every message about it. */
export const MessageId = Type.String({ minLength: 1, maxLength: MAX_MESSAGE_ID_CHARS });

export const MAX_CONTEXT_ID_CHARS = 128;
/**
 * Names an input-streaming context: text pieces sent with the same context_id accumulate, and every message
 * about that context (audio, done, error) carries it.
 */
export const ContextId = Type.String({
  minLength: 1,
  maxLength: MAX_CONTEXT_ID_CHARS,
  description: 'An input-streaming context: pieces with the same id accumulate',
});

/**
 * Speaks `text`. Without `context_id`, a whole request: requests on one connection run in order, each answered by
 * audio chunks then done (or error). With `context_id`, one piece of a text being written (an LLM's tokens): pieces
 * accumulate per context, each sentence is spoken as soon as it is complete, and `continue: false` (the default)
 * ends the context once the rest is spoken.
 */
export const SynthesizeMessage = Type.Object(
  {
    type: Type.Literal('synthesize'),
    text: Type.String({ description: 'Text to speak (up to MAX_TEXT_CHARS characters; in a context, one piece, possibly empty)' }),
    voice_id: Type.Optional(VoiceId),
    engine: Type.Optional(Type.String({ maxLength: 100, description: 'When given, the voice must be spoken by this engine' })),
    speed: Type.Optional(Speed),
    lexicons: Type.Optional(LexiconNames),
    id: Type.Optional(MessageId),
    context_id: Type.Optional(ContextId),
    continue: Type.Optional(
      Type.Boolean({
        description:
          'With context_id: true = more text follows; false (default) = this is the last piece, speak the rest and end the context',
      }),
    ),
  },
  { description: 'Speak a text, or add a piece to an input-streaming context; answered by audio chunks, then done (or error)' },
);
export type SynthesizeMessage = Static<typeof SynthesizeMessage>;

/** Speaks what a context holds now, complete sentence or not; the context stays open for more text. */
export const FlushMessage = Type.Object(
  { type: Type.Literal('flush'), context_id: ContextId },
  { description: 'Speak the text a context still holds, then send done for it; the context stays open' },
);
export type FlushMessage = Static<typeof FlushMessage>;

/**
 * Stops the request with this id (queued or running), the context with this context_id (its text and audio are
 * dropped; no audio for it follows the `done` with `cancelled: true` that answers), or the running request when
 * neither is given.
 */
export const CancelMessage = Type.Object(
  { type: Type.Literal('cancel'), id: Type.Optional(MessageId), context_id: Type.Optional(ContextId) },
  { description: 'Stop a request or a context' },
);
export type CancelMessage = Static<typeof CancelMessage>;

export const ClientMessage = Type.Union([SynthesizeMessage, FlushMessage, CancelMessage]);
export type ClientMessage = Static<typeof ClientMessage>;
export const CLIENT_MESSAGE_TYPES = ['synthesize', 'flush', 'cancel'] as const;

export const AudioMessage = Type.Object({
  type: Type.Literal('audio'),
  audio: Type.String({ description: `base64 float32 LE PCM, ${STREAM_SAMPLE_RATE} Hz mono` }),
  id: Type.Optional(Type.String()),
  context_id: Type.Optional(Type.String()),
  words: Type.Optional(
    Type.Array(WordTiming, { description: 'In a context: times on the utterance (since the context opened or its last done)' }),
  ),
  marks: Type.Optional(
    Type.Array(MarkTiming, { description: 'SSML <mark> names reached in this audio, with their times (on the same timeline as words)' }),
  ),
});
export type AudioMessage = Static<typeof AudioMessage>;

/** The end of a request, or of a context's utterance (its flush, last piece or cancel): samples and seconds of it. */
export const DoneMessage = Type.Object({
  type: Type.Literal('done'),
  id: Type.Optional(Type.String()),
  context_id: Type.Optional(Type.String()),
  samples: Type.Integer({ minimum: 0 }),
  seconds: Type.Number({ minimum: 0 }),
  cancelled: Type.Optional(Type.Boolean()),
});
export type DoneMessage = Static<typeof DoneMessage>;

/** A failure of one request, context or frame; the connection stays open. */
export const ErrorMessage = Type.Object({
  type: Type.Literal('error'),
  error: Type.String(),
  code: Type.String(),
  id: Type.Optional(Type.String()),
  context_id: Type.Optional(Type.String()),
  retry_after: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type ErrorMessage = Static<typeof ErrorMessage>;

/**
 * The request waits for a synthesis slot (every one is busy): `position` 1 is next. Sent before its first audio,
 * and again when the place changes; a request that starts at once gets none.
 */
export const QueuedMessage = Type.Object(
  {
    type: Type.Literal('queued'),
    position: Type.Integer({ minimum: 1, description: 'Place in the fair queue; 1 is next' }),
    id: Type.Optional(Type.String()),
    context_id: Type.Optional(Type.String({ description: 'The input-streaming context whose next sentence waits' })),
  },
  { description: 'The request waits for a free synthesis slot; sent before its first audio' },
);
export type QueuedMessage = Static<typeof QueuedMessage>;

export const ServerMessage = Type.Union([AudioMessage, DoneMessage, ErrorMessage, QueuedMessage]);
export type ServerMessage = Static<typeof ServerMessage>;
