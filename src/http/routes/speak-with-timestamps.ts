import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import { SpeakWithTimestampsBody, SpeechWithTimestamps, type SpeechTimestampsEvent } from '../../schemas/timestamps.ts';
import type { Speech } from '../../speech/speech-service.ts';
import type { Principal } from '../types.ts';
import { collectSpeech, hangUpSignal, sendStreamed, speakInput, speechCaller, speechRouteOptions } from '../speech-reply.ts';

const base64 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');

/**
 * POST /v1/speak/with-timestamps answers one JSON object (audio base64, words, marks);
 * POST /v1/speak/with-timestamps/stream answers NDJSON, one event per audio chunk with its words and marks.
 * Both go through SpeechService like every other door.
 */
export async function speakWithTimestampsRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  const start = (body: SpeakWithTimestampsBody, principal: Principal | null, signal: AbortSignal, download: boolean): Promise<Speech> =>
    app.services.speech.speak(speechCaller(principal), speakInput(body, 'timestamps', download), signal);

  r.post(
    '/v1/speak/with-timestamps',
    {
      ...speechRouteOptions,
      schema: {
        summary: 'Synthesize speech with word timings and marks',
        description:
          'The whole audio as base64 in JSON, with every word (start/end seconds; offset/length of the word in the request text, ' +
          'so "$5.20" is one word) and every SSML <mark> with its time. Same body as /v1/speak.',
        tags: ['Speech'],
        body: SpeakWithTimestampsBody,
        response: { 200: SpeechWithTimestamps },
      },
    },
    async (request, reply) => {
      const signal = hangUpSignal(reply);
      // A download: the JSON holds the whole file, so FLAC gets its exact lengths in the header.
      const speech = await start(request.body, request.principal, signal, true);
      const { bytes, seconds, words, marks } = await collectSpeech(speech);
      const body: SpeechWithTimestamps = {
        audio: bytes.toString('base64'),
        format: speech.format,
        sample_rate: speech.info.sampleRate,
        voice_id: speech.voiceId,
        duration: Math.round(seconds * 1000) / 1000,
        words,
        marks,
      };
      return reply.header('Cache-Control', 'no-store').send(body);
    },
  );

  r.post(
    '/v1/speak/with-timestamps/stream',
    {
      ...speechRouteOptions,
      schema: {
        summary: 'Stream speech with word timings and marks (NDJSON)',
        description:
          'application/x-ndjson: `{"type":"audio","audio":"<base64>","words":[…],"marks":[…]}` per chunk as it is synthesized ' +
          '(the base64 parts concatenated are the audio file), then `{"type":"done","format","sample_rate","voice_id","duration"}`. ' +
          'Errors before the first event are JSON replies; a limit reached later ends the stream with `{"type":"error","error","code"}`.',
        tags: ['Speech'],
        body: SpeakWithTimestampsBody,
      },
    },
    async (request, reply) => {
      const signal = hangUpSignal(reply);
      const speech = await start(request.body, request.principal, signal, false);
      async function* events(): AsyncGenerator<string> {
        const line = (e: SpeechTimestampsEvent): string => `${JSON.stringify(e)}\n`;
        let duration = 0;
        try {
          for await (const chunk of speech.chunks) {
            duration += chunk.seconds;
            yield line({
              type: 'audio',
              audio: base64(chunk.bytes),
              ...(chunk.words && chunk.words.length > 0 ? { words: chunk.words } : {}),
              ...(chunk.marks && chunk.marks.length > 0 ? { marks: chunk.marks } : {}),
            });
          }
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          yield line({ type: 'error', error: err.message, code: err.code });
          return;
        }
        yield line({
          type: 'done',
          format: speech.format,
          sample_rate: speech.info.sampleRate,
          voice_id: speech.voiceId,
          duration: Math.round(duration * 1000) / 1000,
        });
      }
      reply.type('application/x-ndjson').header('X-Voice-Id', speech.voiceId).header('Cache-Control', 'no-store');
      return sendStreamed(request, reply, signal, events());
    },
  );
}
