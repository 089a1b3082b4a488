// POST /v1/phonemize: what the engine will be given for a text, word by word. Pure: only TypeBox.
import { Type, type Static } from '@sinclair/typebox';
import { LexiconNames, PHONEME_ALPHABETS } from './lexicons.ts';
import { VoiceId } from './speech.ts';

export const PhonemizeBody = Type.Object(
  {
    text: Type.String({ description: 'Text to look at (up to MAX_TEXT_CHARS characters)' }),
    voice_id: Type.Optional(VoiceId),
    lexicons: Type.Optional(LexiconNames),
  },
  { additionalProperties: false, examples: [{ text: 'The WHO met on 3/15.', voice_id: 'default' }] },
);
export type PhonemizeBody = Static<typeof PhonemizeBody>;

/** How a word's phonemes are written: a lexicon rule's alphabets, or flite's own ARPAbet. */
export const PHONEME_SETS = [...PHONEME_ALPHABETS, 'arpabet'] as const;
export type PhonemeSet = (typeof PHONEME_SETS)[number];

export const PhonemizedWord = Type.Object({
  word: Type.String({ description: 'A word of the normalized text' }),
  offset: Type.Integer({ description: 'Where it starts in `normalized` (UTF-16 code units)' }),
  length: Type.Integer(),
  phonemes: Type.String({ description: 'Its phonemes, in `alphabet`' }),
  alphabet: Type.Union(
    PHONEME_SETS.map((a) => Type.Literal(a)),
    {
      description: 'The engine’s (ipa or arpabet), or a lexicon phoneme rule’s own (ipa or x-sampa)',
    },
  ),
  lexicon: Type.Optional(Type.Boolean({ description: 'true when a lexicon rule set this word (an alias’s words, or a phoneme rule)' })),
});
export type PhonemizedWord = Static<typeof PhonemizedWord>;

export const PhonemizeResponse = Type.Object({
  voice_id: Type.String(),
  engine: Type.String(),
  alphabet: Type.Union([Type.Literal('ipa'), Type.Literal('arpabet')], {
    description: 'ipa: espeak-ng IPA (espeak, Piper, Kokoro voices); arpabet: flite’s own phone set (CMU lexicon + letter-to-sound)',
  }),
  normalized: Type.String({
    description: 'The text as the engine is given it: lexicon aliases applied, numbers and abbreviations spelled out',
  }),
  words: Type.Array(PhonemizedWord),
});
export type PhonemizeResponse = Static<typeof PhonemizeResponse>;
