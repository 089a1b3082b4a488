// Pronunciation lexicons (/api/lexicons) and POST /v1/phonemize: shapes and limits, written once. Pure: only
// TypeBox, so the server, the client SDK and the dashboard import the same definitions.
import { Type, type Static } from '@sinclair/typebox';

export const LEXICON_LIMITS = {
  /** Lexicons one account may hold. */
  lexiconsPerAccount: 50,
  rulesPerLexicon: 2000,
  nameChars: 64,
  graphemeChars: 100,
  aliasChars: 500,
  phonemeChars: 200,
  /** Lexicons one request may name. */
  lexiconsPerRequest: 10,
  /** Bytes of one PLS document (413 beyond). */
  plsBytes: 1024 * 1024,
} as const;

export const PHONEME_ALPHABETS = ['ipa', 'x-sampa'] as const;
export type PhonemeAlphabet = (typeof PHONEME_ALPHABETS)[number];

/** The content types a PLS upload may carry. */
export const PLS_CONTENT_TYPES = ['application/pls+xml', 'application/xml', 'text/xml'] as const;

export const LexiconName = Type.String({
  minLength: 1,
  maxLength: LEXICON_LIMITS.nameChars,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
  description: 'Unique per account: letters, digits, ".", "_" and "-", starting with a letter or digit',
});

const Grapheme = Type.String({
  minLength: 1,
  maxLength: LEXICON_LIMITS.graphemeChars,
  description: 'The written word or phrase, matched whole-word and case-insensitively',
});

/**
 * One rule: say `alias` instead of `grapheme`, or pronounce `grapheme` as `phoneme` (exactly one of the two; the
 * service checks that, since a schema union would let the validator silently drop the other field).
 */
export const LexiconRule = Type.Object(
  {
    grapheme: Grapheme,
    alias: Type.Optional(Type.String({ minLength: 1, maxLength: LEXICON_LIMITS.aliasChars, description: 'What is said instead' })),
    phoneme: Type.Optional(
      Type.String({ minLength: 1, maxLength: LEXICON_LIMITS.phonemeChars, description: 'The pronunciation, in `alphabet`' }),
    ),
    alphabet: Type.Optional(
      Type.Union(
        PHONEME_ALPHABETS.map((a) => Type.Literal(a)),
        { description: 'With `phoneme`: ipa (default) or x-sampa' },
      ),
    ),
  },
  { additionalProperties: false },
);
export type LexiconRule = Static<typeof LexiconRule>;

const Rules = Type.Array(LexiconRule, {
  maxItems: LEXICON_LIMITS.rulesPerLexicon,
  description: `Up to ${LEXICON_LIMITS.rulesPerLexicon} rules; a grapheme appears once`,
});

export const LexiconParams = Type.Object({ name: LexiconName });
export type LexiconParams = Static<typeof LexiconParams>;

export const CreateLexiconBody = Type.Object(
  {
    name: LexiconName,
    rules: Rules,
    default: Type.Optional(Type.Boolean({ description: 'Make it the account default, used when a request names no lexicon' })),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'acronyms',
        rules: [
          { grapheme: 'WHO', alias: 'World Health Organization' },
          { grapheme: 'Voxsmith', phoneme: 'ˈvɒkssmɪθ' },
        ],
      },
    ],
  },
);
export type CreateLexiconBody = Static<typeof CreateLexiconBody>;

export const ReplaceLexiconBody = Type.Object(
  { rules: Rules, default: Type.Optional(Type.Boolean({ description: 'Unchanged when absent' })) },
  { additionalProperties: false },
);
export type ReplaceLexiconBody = Static<typeof ReplaceLexiconBody>;

export const UpdateLexiconBody = Type.Object(
  {
    name: Type.Optional(LexiconName),
    default: Type.Optional(
      Type.Boolean({ description: 'true makes it the account default (the previous default stops being one); false unsets it' }),
    ),
  },
  { additionalProperties: false },
);
export type UpdateLexiconBody = Static<typeof UpdateLexiconBody>;

const LexiconFields = {
  name: Type.String(),
  default: Type.Boolean({ description: 'The account default, used when a request names no lexicon' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
};

export const Lexicon = Type.Object({ ...LexiconFields, rules: Type.Array(LexiconRule) });
export type Lexicon = Static<typeof Lexicon>;

export const LexiconSummary = Type.Object({ ...LexiconFields, rule_count: Type.Integer() });
export type LexiconSummary = Static<typeof LexiconSummary>;

export const LexiconResponse = Type.Object({ lexicon: Lexicon });
export type LexiconResponse = Static<typeof LexiconResponse>;

export const LexiconList = Type.Object({ lexicons: Type.Array(LexiconSummary) });
export type LexiconList = Static<typeof LexiconList>;

export const LexiconDeleted = Type.Object({ name: Type.String(), deleted: Type.Boolean() });
export type LexiconDeleted = Static<typeof LexiconDeleted>;

/** What a speech request names: lexicons of the caller's own, earlier ones winning where two match. */
export const LexiconNames = Type.Array(LexiconName, {
  maxItems: LEXICON_LIMITS.lexiconsPerRequest,
  description: 'Your lexicons to apply, by name (the first that matches a word wins); without it, your default lexicon if you set one',
});
