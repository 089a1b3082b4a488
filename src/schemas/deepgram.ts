// Deepgram's text-to-speech ("Speak") as its clients send it: the WebSocket's query and messages (Speak, Flush,
// Clear, Close) and the plain HTTP request (`POST /v1/speak?model=…` with `{"text"}`). Pure: only TypeBox.
import { Type, type Static } from '@sinclair/typebox';
import { MAX_VOICE_ID_CHARS, SAMPLE_RATES, SPEED_MAX, SPEED_MIN } from './speech.ts';

/** Their model when none is named: the one their API defaults to. */
export const DEEPGRAM_DEFAULT_MODEL = 'aura-asteria-en';

/** The socket's encodings onto ours: raw 16-bit PCM and G.711 bytes, each at its default rate. */
export const DEEPGRAM_SOCKET_ENCODINGS = {
  linear16: { format: 'pcm', sampleRate: 24_000 },
  mulaw: { format: 'mulaw', sampleRate: 8_000 },
  alaw: { format: 'alaw', sampleRate: 8_000 },
} as const;
export type DeepgramSocketEncoding = keyof typeof DEEPGRAM_SOCKET_ENCODINGS;

/** Their HTTP encodings (aac is theirs too: refused with a message). */
export const DEEPGRAM_HTTP_ENCODINGS = ['linear16', 'mulaw', 'alaw', 'mp3', 'opus', 'flac', 'aac'] as const;
export type DeepgramHttpEncoding = (typeof DEEPGRAM_HTTP_ENCODINGS)[number];

/**
 * The query parameters that make a `POST /v1/speak` Deepgram's rather than ours (ours takes none): their clients
 * always send `model`, and usually `encoding` and the rest.
 */
export const DEEPGRAM_QUERY_NAMES = [
  'model',
  'encoding',
  'sample_rate',
  'container',
  'bit_rate',
  'mip_opt_out',
  'callback',
  'tag',
] as const;

const Model = Type.String({
  minLength: 1,
  maxLength: MAX_VOICE_ID_CHARS,
  description: `An Aura model (aura-2-thalia-en, aura-asteria-en…), mapped to one of our voices, or any Voxsmith voice id; ${DEEPGRAM_DEFAULT_MODEL} by default`,
});
// Query values are strings (the service does not coerce types); the routes read them as numbers.
const SampleRate = Type.String({ pattern: '^[0-9]{1,6}$', description: `Hz: ${SAMPLE_RATES.join(', ')}` });
const DeepgramSpeed = Type.String({
  pattern: '^[0-9]{1,2}(\\.[0-9]{1,4})?$',
  description: `Speaking rate, ${SPEED_MIN} to ${SPEED_MAX}; 1 = normal`,
});
const Ignored = (what: string) => Type.String({ maxLength: 2000, description: `${what}: accepted and ignored` });

export const DeepgramSocketQuery = Type.Object(
  {
    model: Type.Optional(Model),
    encoding: Type.Optional(
      Type.Union(
        Object.keys(DEEPGRAM_SOCKET_ENCODINGS).map((e) => Type.Literal(e)),
        { description: 'linear16 (default), mulaw or alaw: raw samples in binary frames' },
      ),
    ),
    sample_rate: Type.Optional(SampleRate),
    speed: Type.Optional(DeepgramSpeed),
    mip_opt_out: Type.Optional(Ignored('Model improvement opt-out')),
    token: Type.Optional(Type.String({ maxLength: 200, description: 'The API key, for clients that cannot set a header' })),
  },
  { additionalProperties: true },
);
export type DeepgramSocketQuery = Static<typeof DeepgramSocketQuery>;

export const DeepgramHttpQuery = Type.Object(
  {
    model: Type.Optional(Model),
    encoding: Type.Optional(
      Type.Union(
        DEEPGRAM_HTTP_ENCODINGS.map((e) => Type.Literal(e)),
        { description: 'mp3 (default), linear16, mulaw, alaw, opus or flac' },
      ),
    ),
    container: Type.Optional(
      Type.Union([Type.Literal('none'), Type.Literal('wav'), Type.Literal('ogg')], {
        description: 'wav (linear16, mulaw, alaw by default), none (bare samples), ogg (opus)',
      }),
    ),
    sample_rate: Type.Optional(SampleRate),
    bit_rate: Type.Optional(Type.String({ pattern: '^[0-9]{1,7}$', description: 'Bits per second, for mp3 and opus' })),
    speed: Type.Optional(DeepgramSpeed),
    mip_opt_out: Type.Optional(Ignored('Model improvement opt-out')),
    tag: Type.Optional(Ignored('A label for their usage reports')),
  },
  { additionalProperties: true },
);
export type DeepgramHttpQuery = Static<typeof DeepgramHttpQuery>;

export const DeepgramHttpBody = Type.Object({ text: Type.String({ description: 'Text to speak (up to MAX_TEXT_CHARS characters)' }) });
export type DeepgramHttpBody = Static<typeof DeepgramHttpBody>;

export const DeepgramSpeak = Type.Object({ type: Type.Literal('Speak'), text: Type.String({ description: 'Text to add' }) });
export type DeepgramSpeak = Static<typeof DeepgramSpeak>;
export const DEEPGRAM_CONTROL_TYPES = ['Flush', 'Clear', 'Close'] as const;
