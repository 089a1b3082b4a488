import { Type, type Static } from '@sinclair/typebox';

// The query strings of a finished job's downloads (GET /v1/jobs/{id}/audio and /epub).

export const JobAudioQuery = Type.Object({
  layout: Type.Optional(
    Type.Union([Type.Literal('book'), Type.Literal('chapters')], {
      description: '`book` (the default): the one file of the whole book; `chapters`: a zip with one file per chapter, in order',
    }),
  ),
});
export type JobAudioQuery = Static<typeof JobAudioQuery>;

export const JobEpubQuery = Type.Object({
  granularity: Type.Optional(
    Type.Union([Type.Literal('sentence'), Type.Literal('word')], {
      description: 'What a reading system highlights as it plays: each `sentence` (the default), or each `word` within it',
    }),
  ),
});
export type JobEpubQuery = Static<typeof JobEpubQuery>;
