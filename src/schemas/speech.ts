// The speech API's shapes and bounds, written once. Pure: only TypeBox, so the server, the client SDK and the
// dashboard can all import it.
import { Type, type Static } from '@sinclair/typebox';

/** The formats /v1/speak and /v1/audio/speech answer in (DESIGN §5). mp3 is the default. */
export const SPEECH_FORMATS = ['mp3', 'wav', 'opus', 'flac', 'pcm', 'mulaw'] as const;
export type SpeechFormat = (typeof SPEECH_FORMATS)[number];
export const DEFAULT_SPEECH_FORMAT: SpeechFormat = 'mp3';

/** The WebSocket stream's encoding: raw float32 little-endian PCM, not a file format a client may ask for. */
export const STREAM_FORMAT = 'f32';
/** Every encoding the pipeline produces: the public formats plus the stream's. */
export const AUDIO_ENCODINGS = [...SPEECH_FORMATS, STREAM_FORMAT] as const;
export type AudioEncoding = (typeof AUDIO_ENCODINGS)[number];

/** The rate of all speech output (the stream's float32 and every format but mu-law), in Hz. */
export const STREAM_SAMPLE_RATE = 24_000;
/** mu-law is telephone audio. */
export const MULAW_SAMPLE_RATE = 8_000;

/** Speaking rate: 1 is the voice's normal rate. */
export const SPEED_MIN = 0.25;
export const SPEED_MAX = 4;
export const SPEED_DEFAULT = 1;

export const DEFAULT_VOICE_ID = 'default';
export const MAX_VOICE_ID_CHARS = 200;

export const Speed = Type.Number({ minimum: SPEED_MIN, maximum: SPEED_MAX, description: `Speaking rate, ${SPEED_MIN} to ${SPEED_MAX}; 1 = normal` });
export const VoiceId = Type.String({ maxLength: MAX_VOICE_ID_CHARS, description: 'A voice id from /api/voices, or "default"' });

export const SpeakBody = Type.Object(
  {
    text: Type.String({ description: 'Text to speak (up to MAX_TEXT_CHARS characters)' }),
    voice_id: Type.Optional(VoiceId),
    speed: Type.Optional(Speed),
    format: Type.Optional(
      Type.Union(
        SPEECH_FORMATS.map((f) => Type.Literal(f)),
        {
          description:
            'Audio format, mp3 by default: mp3, wav (16-bit), opus (Ogg), flac and pcm (raw 16-bit LE) at 24 kHz mono; mulaw is 8 kHz WAV',
        },
      ),
    ),
  },
  { examples: [{ text: 'Hello from Voxsmith. This is a test.', voice_id: 'flite-slt', speed: 1, format: 'mp3' }] },
);
export type SpeakBody = Static<typeof SpeakBody>;

/** OpenAI's response formats: ours plus aac, which is accepted by the schema only to be refused with a clear message. */
export const OPENAI_FORMATS = [...SPEECH_FORMATS, 'aac'] as const;
export type OpenAiFormat = (typeof OPENAI_FORMATS)[number];

/** The voice names OpenAI's speech models know; each maps onto one of our voices. */
export const OPENAI_VOICE_NAMES = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer', 'verse', 'marin', 'cedar'] as const;
export type OpenAiVoiceName = (typeof OPENAI_VOICE_NAMES)[number];

/** The body of OpenAI's `POST /v1/audio/speech`, as we accept it. */
export const OpenAiSpeechBody = Type.Object(
  {
    model: Type.String({
      maxLength: 100,
      description: 'tts-1, tts-1-hd or gpt-4o-mini-tts (the mapped voice), or an engine id (espeak, flite) to pick that engine',
    }),
    input: Type.String({ description: 'The text (up to MAX_TEXT_CHARS characters)' }),
    voice: Type.Union([Type.String({ maxLength: MAX_VOICE_ID_CHARS }), Type.Object({ id: Type.String({ maxLength: MAX_VOICE_ID_CHARS }) })], {
      description: `An OpenAI voice name (${OPENAI_VOICE_NAMES.join(', ')}) or one of our voice ids`,
    }),
    response_format: Type.Optional(
      Type.Union(
        OPENAI_FORMATS.map((f) => Type.Literal(f)),
        { description: 'mp3 by default; aac is not supported (400)' },
      ),
    ),
    speed: Type.Optional(Speed),
    instructions: Type.Optional(Type.String({ maxLength: 4096, description: 'Accepted and ignored: our engines take no style prompts' })),
    stream_format: Type.Optional(
      Type.Union([Type.Literal('audio'), Type.Literal('sse')], {
        description: 'audio (default): the file, streamed; sse: server-sent events speech.audio.delta (base64) then speech.audio.done',
      }),
    ),
  },
  { examples: [{ model: 'tts-1', input: 'Hello from an OpenAI client.', voice: 'alloy', response_format: 'mp3' }] },
);
export type OpenAiSpeechBody = Static<typeof OpenAiSpeechBody>;

/** The server-sent events of `stream_format: "sse"`: base64 deltas, then one done with usage in characters. */
export const OpenAiSpeechEvent = Type.Union([
  Type.Object({ type: Type.Literal('speech.audio.delta'), audio: Type.String({ description: 'base64 bytes of the encoded file' }) }),
  Type.Object({
    type: Type.Literal('speech.audio.done'),
    usage: Type.Object({ input_tokens: Type.Integer(), output_tokens: Type.Integer(), total_tokens: Type.Integer() }),
  }),
]);
export type OpenAiSpeechEvent = Static<typeof OpenAiSpeechEvent>;

/** A word and when it is heard, in seconds from the start of the stream. */
export const WordTiming = Type.Object({ word: Type.String(), start: Type.Number(), end: Type.Number() });
export type WordTiming = Static<typeof WordTiming>;
