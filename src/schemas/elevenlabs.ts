// ElevenLabs-style routes: their request and response shapes (snake_case on the wire, as their API and SDKs
// speak), so clients built on that API work with only the base URL and key changed. Pure: only TypeBox.
import { Type, type Static } from '@sinclair/typebox';
import { MAX_VOICE_ID_CHARS, SAMPLE_RATES, SPEED_MAX, SPEED_MIN, type SpeechFormat } from './speech.ts';
import { MAX_SEARCH_QUERY_CHARS } from './field-limits.ts';

/** Their voice settings: only `speed` maps onto ours; the others shape their neural models and are accepted and ignored. */
export const ElevenLabsVoiceSettings = Type.Object(
  {
    speed: Type.Optional(Type.Number({ description: `Speaking rate, 1 = normal (our range, ${SPEED_MIN} to ${SPEED_MAX}, applies)` })),
    stability: Type.Optional(Type.Number({ description: 'Accepted and ignored' })),
    similarity_boost: Type.Optional(Type.Number({ description: 'Accepted and ignored' })),
    style: Type.Optional(Type.Number({ description: 'Accepted and ignored' })),
    use_speaker_boost: Type.Optional(Type.Boolean({ description: 'Accepted and ignored' })),
  },
  // Their API grows settings; a client sending a newer one must not be refused.
  { additionalProperties: true },
);

/** The body of `POST /v1/text-to-speech/{voice_id}` (and its stream and timestamp variants), as we accept it. */
export const ElevenLabsSpeechBody = Type.Object(
  {
    text: Type.String({ description: 'The text (up to MAX_TEXT_CHARS characters)' }),
    model_id: Type.Optional(Type.String({ maxLength: 100, description: 'Accepted and ignored: the voice decides the engine' })),
    language_code: Type.Optional(Type.String({ maxLength: 35, description: 'Accepted and ignored: the voice decides the language' })),
    voice_settings: Type.Optional(Type.Union([ElevenLabsVoiceSettings, Type.Null()])),
  },
  {
    // Unknown fields (seed, previous_text, pronunciation_dictionary_locators, ...) are ignored, as their API does with
    // fields a model does not use.
    additionalProperties: true,
    examples: [{ text: 'Hello from an ElevenLabs client.', model_id: 'eleven_multilingual_v2', voice_settings: { speed: 1 } }],
  },
);
export type ElevenLabsSpeechBody = Static<typeof ElevenLabsSpeechBody>;

export const ElevenLabsVoiceParams = Type.Object({
  voice_id: Type.String({ minLength: 1, maxLength: MAX_VOICE_ID_CHARS, description: 'One of our voice ids (GET /v1/voices)' }),
});

export const CharacterAlignment = Type.Object(
  {
    characters: Type.Array(Type.String()),
    character_start_times_seconds: Type.Array(Type.Number()),
    character_end_times_seconds: Type.Array(Type.Number()),
  },
  { description: 'One entry per character of the text; times in seconds from the start of the audio' },
);

/** `/with-timestamps`: the whole audio as base64 with the characters' times. */
export const AudioWithTimestamps = Type.Object({
  audio_base64: Type.String({ description: 'The audio file, base64' }),
  alignment: Type.Union([CharacterAlignment, Type.Null()]),
  normalized_alignment: Type.Union([CharacterAlignment, Type.Null()], { description: 'The same as alignment: text is aligned as written' }),
});
export type AudioWithTimestamps = Static<typeof AudioWithTimestamps>;

/** One line of `/stream/with-timestamps` (newline-delimited JSON): the next bytes of the file and the characters they reach. */
export const AudioChunkWithTimestamps = Type.Object({
  audio_base64: Type.String(),
  alignment: Type.Optional(CharacterAlignment),
  normalized_alignment: Type.Optional(CharacterAlignment),
});
export type AudioChunkWithTimestamps = Static<typeof AudioChunkWithTimestamps>;

/** Their voice categories; ours map: built-in → premade, clone → cloned, breed → generated. */
export const ElevenLabsVoice = Type.Object({
  voice_id: Type.String(),
  name: Type.String(),
  category: Type.Union([Type.Literal('premade'), Type.Literal('cloned'), Type.Literal('generated')]),
  description: Type.String(),
  labels: Type.Record(Type.String(), Type.String(), { description: 'gender, language (BCP 47), accent, engine' }),
  preview_url: Type.Union([Type.String(), Type.Null()], {
    description: 'The voice’s preview line as MP3 (GET /api/voices/{id}/preview, with the same key; not billed)',
  }),
  available_for_tiers: Type.Array(Type.String()),
});
export type ElevenLabsVoice = Static<typeof ElevenLabsVoice>;

export const ElevenLabsVoiceList = Type.Object({ voices: Type.Array(ElevenLabsVoice) });

export const MAX_V2_PAGE_SIZE = 100;
export const DEFAULT_V2_PAGE_SIZE = 10;
export const ElevenLabsVoiceSearchQuery = Type.Object(
  {
    search: Type.Optional(Type.String({ maxLength: MAX_SEARCH_QUERY_CHARS, description: 'Free-text keywords, as /api/voices/search' })),
    // Query values are strings (no coercion here): digits, checked against the bound by the route.
    page_size: Type.Optional(
      Type.String({ pattern: '^[0-9]{1,3}$', description: `1 to ${MAX_V2_PAGE_SIZE}; ${DEFAULT_V2_PAGE_SIZE} by default` }),
    ),
    next_page_token: Type.Optional(Type.String({ maxLength: 20, description: 'From the previous page' })),
    category: Type.Optional(Type.String({ maxLength: 20, description: 'premade, cloned or generated' })),
  },
  { additionalProperties: true },
);
export type ElevenLabsVoiceSearchQuery = Static<typeof ElevenLabsVoiceSearchQuery>;

export const ElevenLabsVoicePage = Type.Object({
  voices: Type.Array(ElevenLabsVoice),
  has_more: Type.Boolean(),
  total_count: Type.Integer(),
  next_page_token: Type.Union([Type.String(), Type.Null()]),
});

/** What one of their `output_format` names means here: one of our formats, at the rate and bitrate the name asks. */
export interface ElevenLabsOutput {
  /** Every format of ours but FLAC, which their API does not offer. */
  format: Exclude<SpeechFormat, 'flac'>;
  /** PCM and WAV: the output rate. */
  sampleRate?: number;
  /** MP3 (rate and bitrate) and Opus (bitrate, kbit/s): what the codec is set to. */
  codec?: { sampleRate?: number; bitrate: number };
  /** µ-law and A-law come as bare bytes, without a WAV header, as theirs do (Twilio-style media streams). */
  headerless?: boolean;
}

const MP3_NAMES = ['mp3_22050_32', 'mp3_24000_48', 'mp3_44100_32', 'mp3_44100_64', 'mp3_44100_96', 'mp3_44100_128', 'mp3_44100_192'];
const OPUS_NAMES = ['opus_48000_32', 'opus_48000_64', 'opus_48000_96', 'opus_48000_128', 'opus_48000_192'];

/** `codec_rate_bitrate` → its rate (Hz) and bitrate (kbit/s). */
function rateAndBitrate(name: string): { sampleRate: number; bitrate: number } {
  const [, rate, bitrate] = name.split('_');
  return { sampleRate: Number(rate), bitrate: Number(bitrate) };
}

/**
 * Their output formats we serve, by name. MP3 comes at the rate and constant bitrate it names (mp3_44100_128: 44.1
 * kHz, 128 kbit/s); Opus (in Ogg, which always decodes at 48 kHz) at the bitrate it names. PCM and WAV keep the
 * rate they name, for every rate we produce (their pcm_32000 and wav_32000 are not among them); µ-law and A-law
 * are bare 8 kHz G.711 bytes, as theirs.
 */
export const ELEVENLABS_OUTPUTS: Readonly<Record<string, ElevenLabsOutput>> = Object.freeze({
  ...Object.fromEntries(MP3_NAMES.map((n) => [n, { format: 'mp3', codec: rateAndBitrate(n) }])),
  ...Object.fromEntries(OPUS_NAMES.map((n) => [n, { format: 'opus', codec: { bitrate: rateAndBitrate(n).bitrate } }])),
  ...Object.fromEntries(SAMPLE_RATES.map((r) => [`pcm_${r}`, { format: 'pcm', sampleRate: r }])),
  ...Object.fromEntries(SAMPLE_RATES.map((r) => [`wav_${r}`, { format: 'wav', sampleRate: r }])),
  ulaw_8000: { format: 'mulaw', headerless: true },
  alaw_8000: { format: 'alaw', headerless: true },
});
export const ELEVENLABS_OUTPUT_NAMES = Object.keys(ELEVENLABS_OUTPUTS);
export const DEFAULT_ELEVENLABS_OUTPUT = 'mp3_44100_128';

export const ElevenLabsSpeechQuery = Type.Object(
  {
    output_format: Type.Optional(
      Type.Union(
        ELEVENLABS_OUTPUT_NAMES.map((n) => Type.Literal(n)),
        { description: `codec_rate[_bitrate], ${DEFAULT_ELEVENLABS_OUTPUT} by default: ${ELEVENLABS_OUTPUT_NAMES.join(', ')}` },
      ),
    ),
    optimize_streaming_latency: Type.Optional(Type.String({ maxLength: 10, description: 'Accepted and ignored' })),
    enable_logging: Type.Optional(Type.String({ maxLength: 10, description: 'Accepted and ignored: nothing is logged but usage' })),
  },
  { additionalProperties: true },
);
export type ElevenLabsSpeechQuery = Static<typeof ElevenLabsSpeechQuery>;

/** `GET /v1/models` with `xi-api-key`: their model list (our engines, each speaking its voices' languages). */
export const ElevenLabsModel = Type.Object({
  model_id: Type.String({
    description: 'One of our engines (their model_id is accepted and ignored by text-to-speech: the voice decides)',
  }),
  name: Type.String(),
  description: Type.String(),
  can_be_finetuned: Type.Boolean(),
  can_do_text_to_speech: Type.Boolean(),
  can_do_voice_conversion: Type.Boolean(),
  can_use_style: Type.Boolean(),
  can_use_speaker_boost: Type.Boolean(),
  serves_pro_voices: Type.Boolean(),
  token_cost_factor: Type.Number(),
  requires_alpha_access: Type.Boolean(),
  max_characters_request_free_user: Type.Integer(),
  max_characters_request_subscribed_user: Type.Integer(),
  maximum_text_length_per_request: Type.Integer(),
  languages: Type.Array(Type.Object({ language_id: Type.String({ description: 'ISO 639 code' }), name: Type.String() })),
  model_rates: Type.Object({ character_cost_multiplier: Type.Number() }),
  concurrency_group: Type.String(),
});
export type ElevenLabsModel = Static<typeof ElevenLabsModel>;
export const ElevenLabsModelList = Type.Array(ElevenLabsModel);

const Tier = Type.String({ description: 'The account’s plan' });

/** Their subscription shape, filled with what an account here has: the characters it used this month (UTC). */
export const ElevenLabsSubscription = Type.Object({
  tier: Tier,
  character_count: Type.Integer({ description: 'Characters synthesized this calendar month (UTC), every key and the dashboard' }),
  character_limit: Type.Integer({ description: 'No monthly limit here: 2^53 − 1' }),
  max_character_limit_extension: Type.Null(),
  max_credit_limit_extension: Type.Integer(),
  can_extend_character_limit: Type.Boolean(),
  allowed_to_extend_character_limit: Type.Boolean(),
  next_character_count_reset_unix: Type.Integer({ description: 'The start of next month (UTC), Unix seconds' }),
  voice_slots_used: Type.Integer({ description: 'Your own voices (clones and bred voices)' }),
  professional_voice_slots_used: Type.Integer(),
  professional_voice_slots_used_in_workspace: Type.Integer(),
  voice_limit: Type.Integer({ description: 'MAX_VOICES_PER_USER' }),
  max_voice_add_edits: Type.Null(),
  voice_add_edit_counter: Type.Integer(),
  professional_voice_limit: Type.Integer(),
  can_extend_voice_limit: Type.Boolean(),
  can_use_instant_voice_cloning: Type.Boolean(),
  can_use_professional_voice_cloning: Type.Boolean(),
  currency: Type.Literal('usd'),
  current_overage: Type.Object({ amount: Type.String(), currency: Type.Literal('usd') }),
  status: Type.Literal('active'),
  billing_period: Type.Literal('monthly_period'),
  character_refresh_period: Type.Literal('monthly_period'),
  next_invoice: Type.Null(),
  open_invoices: Type.Array(Type.Never()),
  has_open_invoices: Type.Boolean(),
});
export type ElevenLabsSubscription = Static<typeof ElevenLabsSubscription>;

/** `GET /v1/user`: their user shape around the subscription. */
export const ElevenLabsUser = Type.Object({
  user_id: Type.String(),
  workspace_id: Type.String({ description: 'The account’s own id: one account, one workspace' }),
  subscription: ElevenLabsSubscription,
  is_new_user: Type.Boolean(),
  can_use_delayed_payment_methods: Type.Boolean(),
  is_onboarding_completed: Type.Boolean(),
  is_onboarding_checklist_completed: Type.Boolean(),
  first_name: Type.Null(),
  is_api_key_hashed: Type.Boolean({ description: 'true: keys are stored as hashes only' }),
  xi_api_key_preview: Type.Union([Type.String(), Type.Null()], {
    description: 'The masked key the request used; null for a dashboard session',
  }),
  created_at: Type.Integer({ description: 'Unix seconds' }),
  seat_type: Type.Literal('workspace_admin'),
});
export type ElevenLabsUser = Static<typeof ElevenLabsUser>;
