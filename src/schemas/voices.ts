// Voices as the API shows them, and the list, search and single-voice requests. Pure: only TypeBox.
import { Type, type Static } from '@sinclair/typebox';

export const GENDERS = ['female', 'male', 'neutral'] as const;
export type Gender = (typeof GENDERS)[number];
export const VOICE_SOURCES = ['builtin', 'clone', 'breed'] as const;
export type VoiceSource = (typeof VOICE_SOURCES)[number];

export const MAX_VOICE_SEARCH_LIMIT = 200;

/** What a voice id looks like: stable and URL-safe, e.g. `espeak-de-female-1`, `flite-slt`. */
const VOICE_ID_SOURCE = '^[a-z0-9]+(-[a-z0-9]+)*$';
export const VOICE_ID_PATTERN = new RegExp(VOICE_ID_SOURCE);

// Plain strings with an enum, not unions of literals: the response serializer must never refuse a voice.
const Gender = Type.Unsafe<Gender>(Type.String({ enum: [...GENDERS] }));
const VoiceSource = Type.Unsafe<VoiceSource>(Type.String({ enum: [...VOICE_SOURCES] }));

/** A voice as the API shows it; further fields may be added (clients should ignore what they do not know). */
export const Voice = Type.Object(
  {
    id: Type.String({ pattern: VOICE_ID_SOURCE, description: 'Stable, URL-safe id, used as voice_id' }),
    name: Type.String(),
    language: Type.String({ description: 'BCP 47 tag, e.g. en-US' }),
    language_name: Type.String({ description: 'English name of the language' }),
    gender: Gender,
    engine: Type.String({ description: 'The engine that speaks it (espeak, flite, piper, kokoro)' }),
    source: VoiceSource,
    description: Type.String(),
    tags: Type.Array(Type.String(), { description: 'Accent and region words, native language name, style words' }),
    parents: Type.Optional(Type.Array(Type.String(), { description: 'The two parent voice ids of a bred voice' })),
    created_at: Type.Optional(Type.String({ format: 'date-time' })),
  },
  {
    additionalProperties: true,
    examples: [
      {
        id: 'flite-slt',
        name: 'Sally',
        language: 'en-US',
        language_name: 'English',
        gender: 'female',
        engine: 'flite',
        source: 'builtin',
        description: 'Female American English voice: United States. Clear and natural.',
        tags: ['american', 'united states', 'us'],
      },
    ],
  },
);
export type Voice = Static<typeof Voice>;

/** One's own voice as its owner sees it: the public fields plus its genome and how it was made. */
export const OwnedVoice = Type.Composite(
  [
    Voice,
    Type.Object({
      genome: Type.Optional(Type.Unknown({ description: 'The genes the voice is rendered from' })),
      features: Type.Optional(Type.Unknown({ description: 'Measurements of the sample and of the clone' })),
      mutation_rate: Type.Optional(Type.Number()),
      seed: Type.Optional(Type.Integer()),
    }),
  ],
  { additionalProperties: true },
);
export type OwnedVoice = Static<typeof OwnedVoice>;

export const VoiceList = Type.Object({ voices: Type.Array(Voice) }, { description: 'The voices, best match first for a search' });
export type VoiceList = Static<typeof VoiceList>;

export const VoiceListQuery = Type.Object({
  language: Type.Optional(Type.String({ description: 'BCP 47 tag or prefix, e.g. en, en-GB' })),
  gender: Type.Optional(Type.String({ description: 'female, male or neutral' })),
  engine: Type.Optional(Type.String({ description: 'espeak, flite, piper or kokoro (neural voices from VOICES_DIR)' })),
});
export type VoiceListQuery = Static<typeof VoiceListQuery>;

export const VoiceSearchQuery = Type.Object({
  q: Type.Optional(Type.String({ description: 'Keywords, e.g. "british female" (required)', examples: ['british female'] })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: `At most this many (${MAX_VOICE_SEARCH_LIMIT} at most)` })),
});
export type VoiceSearchQuery = Static<typeof VoiceSearchQuery>;

export const VoiceParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
export type VoiceParams = Static<typeof VoiceParams>;

/** One voice: a built-in one, or one's own with its genome. */
export const VoiceResponse = Type.Object({ voice: OwnedVoice }, { description: 'The voice' });
export type VoiceResponse = Static<typeof VoiceResponse>;

export const VoiceDeleted = Type.Object({ id: Type.String(), deleted: Type.Boolean() }, { description: 'Deleted' });
export type VoiceDeleted = Static<typeof VoiceDeleted>;

export const VoicePreviewQuery = Type.Object({
  language: Type.Optional(
    Type.String({ maxLength: 35, description: 'Whose preview line to speak (BCP 47, e.g. de-DE); the voice’s own language by default' }),
  ),
});
export type VoicePreviewQuery = Static<typeof VoicePreviewQuery>;
