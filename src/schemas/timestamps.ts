// Speech with word timings and SSML marks over plain HTTP: one JSON answer, or NDJSON events as the audio is made.
// Pure: only TypeBox, so the server, the client SDK and the dashboard can all import it.
import { Type, type Static } from '@sinclair/typebox';
import { MarkTiming, SpeakBody, WordTiming } from './speech.ts';

/** The same body as /v1/speak. */
export const SpeakWithTimestampsBody = SpeakBody;
export type SpeakWithTimestampsBody = SpeakBody;

export const SpeechWithTimestamps = Type.Object({
  audio: Type.String({ description: 'The whole audio file, base64' }),
  format: Type.String({ description: 'The audio format (as requested; mp3 by default)' }),
  sample_rate: Type.Integer(),
  voice_id: Type.String({ description: 'The voice used ("default" resolved)' }),
  duration: Type.Number({ description: 'Seconds of audio' }),
  words: Type.Array(WordTiming, { description: 'Every spoken word, in order, with its span in the request text' }),
  marks: Type.Array(MarkTiming, { description: 'SSML <mark>s, in order' }),
});
export type SpeechWithTimestamps = Static<typeof SpeechWithTimestamps>;

/** One line of the NDJSON stream: audio chunks with the words and marks they complete, then done (or an error). */
export const SpeechTimestampsEvent = Type.Union([
  Type.Object({
    type: Type.Literal('audio'),
    audio: Type.String({ description: 'base64 bytes of the next part of the audio file' }),
    words: Type.Optional(Type.Array(WordTiming)),
    marks: Type.Optional(Type.Array(MarkTiming)),
  }),
  Type.Object({
    type: Type.Literal('done'),
    format: Type.String(),
    sample_rate: Type.Integer(),
    voice_id: Type.String(),
    duration: Type.Number(),
  }),
  Type.Object({ type: Type.Literal('error'), error: Type.String(), code: Type.String() }),
]);
export type SpeechTimestampsEvent = Static<typeof SpeechTimestampsEvent>;
