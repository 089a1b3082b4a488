// The speech API's shapes and bounds, written once. Pure: only TypeBox, so the server, the client SDK and the
// dashboard can all import it.
import { Type, type Static } from '@sinclair/typebox';
import { LexiconNames } from './lexicons.ts';

/** The formats /v1/speak and /v1/audio/speech answer in. mp3 is the default: every player and browser opens it. */
export const SPEECH_FORMATS = ['mp3', 'wav', 'opus', 'flac', 'pcm', 'mulaw', 'alaw'] as const;
export type SpeechFormat = (typeof SPEECH_FORMATS)[number];
export const DEFAULT_SPEECH_FORMAT: SpeechFormat = 'mp3';

/** The WebSocket stream's encoding: raw float32 little-endian PCM, not a file format a client may ask for. */
export const STREAM_FORMAT = 'f32';
/** Every encoding the pipeline produces: the public formats plus the stream's. */
export const AUDIO_ENCODINGS = [...SPEECH_FORMATS, STREAM_FORMAT] as const;
export type AudioEncoding = (typeof AUDIO_ENCODINGS)[number];

/** The rate of all speech output (the stream's float32 and every format but mu-law), in Hz. */
export const STREAM_SAMPLE_RATE = 24_000;
/** mu-law and A-law (G.711) are telephone audio. */
export const MULAW_SAMPLE_RATE = 8_000;
export const ALAW_SAMPLE_RATE = 8_000;

/** The output rates a client may choose (`sample_rate`), in Hz: telephone, wideband, the engines' own, CD and video. */
export const SAMPLE_RATES = [8_000, 16_000, 22_050, 24_000, 44_100, 48_000] as const;
export type SampleRate = (typeof SAMPLE_RATES)[number];
/** The formats whose rate `sample_rate` chooses; every other format has one rate of its own. */
export const RATE_FORMATS = ['pcm', 'wav'] as const satisfies readonly SpeechFormat[];

export const SampleRateField = Type.Union(
  SAMPLE_RATES.map((r) => Type.Literal(r)),
  {
    description: `Output sample rate in Hz for pcm and wav: ${SAMPLE_RATES.join(', ')}; ${STREAM_SAMPLE_RATE} by default (mulaw and alaw are always ${MULAW_SAMPLE_RATE})`,
  },
);

/** Speaking rate: 1 is the voice's normal rate. */
export const SPEED_MIN = 0.25;
export const SPEED_MAX = 4;
export const SPEED_DEFAULT = 1;

export const DEFAULT_VOICE_ID = 'default';
export const MAX_VOICE_ID_CHARS = 200;

export const TextType = Type.Union([Type.Literal('text'), Type.Literal('ssml')], {
  description:
    'ssml: the text is SSML (speak, p, s, break, prosody, emphasis, say-as, sub, phoneme, lang, voice, mark). By default text that starts with <speak> (after an optional XML declaration and comments) is SSML, and plain text may carry <break time="1s"/> tags',
});

export const Speed = Type.Number({
  minimum: SPEED_MIN,
  maximum: SPEED_MAX,
  description: `Speaking rate, ${SPEED_MIN} to ${SPEED_MAX}; 1 = normal`,
});
export const VoiceId = Type.String({ maxLength: MAX_VOICE_ID_CHARS, description: 'A voice id from /api/voices, or "default"' });

export const SpeakBody = Type.Object(
  {
    text: Type.String({ description: 'Text to speak (up to MAX_TEXT_CHARS characters), or SSML (see text_type)' }),
    text_type: Type.Optional(TextType),
    voice_id: Type.Optional(VoiceId),
    speed: Type.Optional(Speed),
    lexicons: Type.Optional(LexiconNames),
    format: Type.Optional(
      Type.Union(
        SPEECH_FORMATS.map((f) => Type.Literal(f)),
        {
          description:
            'Audio format, mp3 by default: mp3, wav (16-bit), opus (Ogg), flac and pcm (raw 16-bit LE) at 24 kHz mono (pcm and wav at sample_rate); mulaw and alaw are 8 kHz WAV',
        },
      ),
    ),
    sample_rate: Type.Optional(SampleRateField),
  },
  {
    // A misspelt or foreign field ("voice", "input") is refused with its name rather than silently ignored.
    additionalProperties: false,
    examples: [{ text: 'Hello from Voxsmith. This is a test.', voice_id: 'flite-slt', speed: 1, format: 'mp3' }],
  },
);
export type SpeakBody = Static<typeof SpeakBody>;

/** OpenAI's response formats: ours plus aac, which is accepted by the schema only to be refused with a clear message. */
export const OPENAI_FORMATS = [...SPEECH_FORMATS, 'aac'] as const;
export type OpenAiFormat = (typeof OPENAI_FORMATS)[number];

/** The voice names OpenAI's speech models know; each maps onto one of our voices. */
export const OPENAI_VOICE_NAMES = [
  'alloy',
  'ash',
  'ballad',
  'coral',
  'echo',
  'fable',
  'nova',
  'onyx',
  'sage',
  'shimmer',
  'verse',
  'marin',
  'cedar',
] as const;
export type OpenAiVoiceName = (typeof OPENAI_VOICE_NAMES)[number];

/** The body of OpenAI's `POST /v1/audio/speech`, as we accept it. */
export const OpenAiSpeechBody = Type.Object(
  {
    model: Type.String({
      maxLength: 100,
      description: 'tts-1, tts-1-hd or gpt-4o-mini-tts (the mapped voice), or an engine id (espeak, flite) to pick that engine',
    }),
    input: Type.String({ description: 'The text (up to MAX_TEXT_CHARS characters)' }),
    voice: Type.Union(
      [Type.String({ maxLength: MAX_VOICE_ID_CHARS }), Type.Object({ id: Type.String({ maxLength: MAX_VOICE_ID_CHARS }) })],
      {
        description: `An OpenAI voice name (${OPENAI_VOICE_NAMES.join(', ')}) or one of our voice ids`,
      },
    ),
    response_format: Type.Optional(
      Type.Union(
        OPENAI_FORMATS.map((f) => Type.Literal(f)),
        { description: 'mp3 by default; aac is not supported (400)' },
      ),
    ),
    speed: Type.Optional(Speed),
    sample_rate: Type.Optional(SampleRateField),
    lexicons: Type.Optional(LexiconNames),
    instructions: Type.Optional(
      Type.String({
        maxLength: 4096,
        description:
          'Style prompt: a pace word (slowly, quickly, very slowly...) sets the speed when `speed` is absent; the rest is ignored (our engines take no prompts)',
      }),
    ),
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

/**
 * A word and when it is heard, in seconds from the start of the stream, with where it was written in the
 * request text (UTF-16 code units; for SSML, of the whole request string): "$5.20" is one word.
 */
export const WordTiming = Type.Object({
  word: Type.String({ description: 'The word as written in the request (e.g. "$5.20", not "five dollars")' }),
  start: Type.Number({ description: 'Seconds from the start of the audio' }),
  end: Type.Number({ description: 'Seconds from the start of the audio' }),
  offset: Type.Integer({ minimum: 0, description: 'UTF-16 offset of the word in the request text' }),
  length: Type.Integer({ minimum: 0, description: 'UTF-16 length of the word in the request text' }),
});
export type WordTiming = Static<typeof WordTiming>;

/** An SSML `<mark name>` and when the audio reaches it, in seconds from the start. */
export const MarkTiming = Type.Object({ name: Type.String(), time: Type.Number() });
export type MarkTiming = Static<typeof MarkTiming>;
