// The voice forge's requests: a clone upload (multipart form fields) and a breeding (JSON). Pure: only TypeBox.
import { Type, type Static } from '@sinclair/typebox';
import { MAX_NAME_CHARS, MAX_TRANSCRIPT_CHARS } from './field-limits.ts';
import { MultipartUpload } from './multipart.ts';
import { OwnedVoice } from './voices.ts';

export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
/** Breeding seeds are 32-bit: the same parents, rate and seed always give the same voice. */
export const MAX_SEED = 0xffff_ffff;

const Name = Type.String({
  minLength: 1,
  maxLength: MAX_NAME_CHARS,
  description: 'A name of your choice (not blank, no control characters)',
});

/** The text fields of a clone upload, checked once the multipart parts have been read. */
export const CloneFields = Type.Object({
  name: Name,
  language: Type.Optional(Type.String({ description: 'BCP 47 tag of the sample’s language, e.g. en-US; en by default' })),
  transcript: Type.Optional(
    Type.String({
      maxLength: MAX_TRANSCRIPT_CHARS,
      description:
        'What the sample says. The fit then reads the same words and matches their duration, which keeps the speaker’s pace more exactly than a rate estimate from audio alone',
    }),
  ),
});
export type CloneFields = Static<typeof CloneFields>;

/** The multipart form of POST /v1/forge/clone: the sample file and the text fields. */
export const CloneUpload = MultipartUpload(
  'audio',
  'A speech sample of a few seconds or more (wav, mp3, ogg, flac; 10 MiB at most)',
  CloneFields,
);
export type CloneUpload = Static<typeof CloneUpload>;

export const BreedBody = Type.Object(
  {
    parent_a: Type.String({ minLength: 1, maxLength: 200, description: 'A voice id' }),
    parent_b: Type.String({ minLength: 1, maxLength: 200, description: 'A voice id' }),
    name: Name,
    mutation_rate: Type.Optional(
      Type.Number({ minimum: 0, maximum: 1, description: 'How far the child may stray from its parents; 0.2 by default' }),
    ),
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_SEED, description: 'Same parents, rate and seed: the same voice' })),
  },
  { examples: [{ parent_a: 'flite-slt', parent_b: 'espeak-en-gb-female-1', name: 'Blend', mutation_rate: 0.1 }] },
);
export type BreedBody = Static<typeof BreedBody>;

export const ForgedVoice = Type.Object({ voice: OwnedVoice }, { description: 'The new voice' });
export type ForgedVoice = Static<typeof ForgedVoice>;
