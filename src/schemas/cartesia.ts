// Cartesia's TTS WebSocket (/tts/websocket) as its clients send it: generation requests by context_id (continue,
// flush, add_timestamps, a raw output_format) and cancels. Fields of theirs we do not use (model_id, language,
// max_buffer_delay_ms, pronunciation_dict_id...) are accepted and ignored, so their SDKs and LiveKit's plugin send
// unchanged. Pure: only TypeBox.
import { Type, type Static } from '@sinclair/typebox';
import { MAX_VOICE_ID_CHARS, SAMPLE_RATES, Speed } from './speech.ts';
import { ContextId } from './stream.ts';

/** Their raw encodings onto ours: float32 and 16-bit PCM, and G.711 bytes without a header. */
export const CARTESIA_ENCODINGS = {
  pcm_f32le: { format: 'f32', bytesPerSample: 4 },
  pcm_s16le: { format: 'pcm', bytesPerSample: 2 },
  pcm_mulaw: { format: 'mulaw', bytesPerSample: 1 },
  pcm_alaw: { format: 'alaw', bytesPerSample: 1 },
} as const;
export type CartesiaEncoding = keyof typeof CARTESIA_ENCODINGS;

const Nullable = <T extends ReturnType<typeof Type.Boolean>>(t: T) => Type.Union([t, Type.Null()]);

export const CartesiaOutputFormat = Type.Object({
  container: Type.Literal('raw', { description: 'Only raw: the audio comes in chunk messages' }),
  encoding: Type.Union(
    Object.keys(CARTESIA_ENCODINGS).map((e) => Type.Literal(e)),
    { description: 'pcm_f32le, pcm_s16le, pcm_mulaw or pcm_alaw' },
  ),
  sample_rate: Type.Union(
    SAMPLE_RATES.map((r) => Type.Literal(r)),
    { description: `Hz: ${SAMPLE_RATES.join(', ')}` },
  ),
});
export type CartesiaOutputFormat = Static<typeof CartesiaOutputFormat>;

export const CartesiaVoice = Type.Object({
  mode: Type.Optional(Type.Literal('id', { description: 'Only "id": a voice is named, not embedded' })),
  id: Type.String({
    minLength: 1,
    maxLength: MAX_VOICE_ID_CHARS,
    description: 'Any Voxsmith voice id (GET /v1/voices), or an OpenAI voice name (alloy, ash, nova...)',
  }),
});

/**
 * A piece of a context's transcript. The context's first message sets its voice, output format, speed and
 * timestamps; later ones may repeat them (their SDKs do) and are read for the transcript, continue and flush only.
 */
export const CartesiaGeneration = Type.Object(
  {
    context_id: ContextId,
    transcript: Type.String({ description: 'Text to add to the context (may be empty)' }),
    model_id: Type.Optional(Type.String({ maxLength: 100, description: 'Accepted and ignored: the voice decides the engine' })),
    voice: Type.Optional(CartesiaVoice),
    output_format: Type.Optional(CartesiaOutputFormat),
    language: Type.Optional(Type.String({ maxLength: 32, description: 'Accepted and ignored: the voice speaks its own language' })),
    continue: Type.Optional(Nullable(Type.Boolean({ description: 'true: more text follows; false (default): speak the rest and end' }))),
    flush: Type.Optional(Nullable(Type.Boolean({ description: 'Speak what the context holds now, then flush_done' }))),
    add_timestamps: Type.Optional(Nullable(Type.Boolean({ description: 'Send word timestamps after each chunk' }))),
    generation_config: Type.Optional(Type.Object({ speed: Type.Optional(Speed) })),
  },
  { description: 'A generation request (a transcript piece of a context)' },
);
export type CartesiaGeneration = Static<typeof CartesiaGeneration>;

export const CartesiaCancel = Type.Object(
  { context_id: ContextId, cancel: Type.Literal(true) },
  { description: 'Stop a context at once: no more of its audio is sent' },
);
export type CartesiaCancel = Static<typeof CartesiaCancel>;

/** The largest Cartesia-Version value read; any date-like version is accepted (the protocol is one). */
export const MAX_CARTESIA_VERSION_CHARS = 32;
