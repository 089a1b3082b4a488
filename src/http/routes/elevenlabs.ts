import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  AudioChunkWithTimestamps,
  AudioWithTimestamps,
  DEFAULT_ELEVENLABS_OUTPUT,
  ELEVENLABS_OUTPUTS,
  ElevenLabsSpeechBody,
  ElevenLabsSpeechQuery,
  ElevenLabsVoiceParams,
} from '../../schemas/elevenlabs.ts';
import { CharacterAligner, concatAlignments, emptyAlignment, type CharacterAlignment } from '../../speech/character-alignment.ts';
import type { Speech } from '../../speech/speech-service.ts';
import { audioResponse } from '../plugins/openapi.ts';
import type { Principal } from '../types.ts';
import { collectSpeech, hangUpSignal, sendAudio, sendStreamed, speechCaller, speechRouteOptions } from '../speech-reply.ts';

const TAG = 'ElevenLabs compatible';
const SECURITY: Array<Record<string, string[]>> = [{ xiApiKey: [] }, { apiKey: [] }, { session: [] }];

/** What a speech request carries, once validated. */
interface SpeechRequestParts {
  principal: Principal | null;
  params: { voice_id: string };
  query: ElevenLabsSpeechQuery;
  body: ElevenLabsSpeechBody;
}

const schemaParts = {
  params: ElevenLabsVoiceParams,
  querystring: ElevenLabsSpeechQuery,
  body: ElevenLabsSpeechBody,
  tags: [TAG],
  security: SECURITY,
};

/** A speech route's options: the speech routes' authorization and this API's request, with its own summary and answer. */
function speechRoute<Response>(summary: string, response: Response, description?: string) {
  return {
    ...speechRouteOptions,
    schema: { ...schemaParts, summary, ...(description ? { description } : {}), response: { 200: response } },
  };
}

const ndjsonResponse = {
  description: 'Newline-delimited JSON: one {"audio_base64", "alignment", "normalized_alignment"} object per line',
  content: { 'application/x-ndjson': { schema: AudioChunkWithTimestamps } },
};

/**
 * ElevenLabs' text-to-speech API over ours (`POST /v1/text-to-speech/{voice_id}` and its /stream and
 * /with-timestamps variants), so their SDKs work with the base URL and key changed; the key may come in
 * `xi-api-key`. Their voice ids are not ours: pass one of ours (GET /v1/voices lists them in their shape).
 */
export async function elevenLabsRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  /** The speech for one request; `download`: the bytes form one file (not a stream a client reassembles). */
  const speak = (request: SpeechRequestParts, signal: AbortSignal, download: boolean): Promise<Speech> => {
    const { body, query, params } = request;
    const output = ELEVENLABS_OUTPUTS[query.output_format ?? DEFAULT_ELEVENLABS_OUTPUT];
    return app.services.speech.speak(
      speechCaller(request.principal),
      {
        text: body.text,
        voiceId: params.voice_id,
        speed: body.voice_settings?.speed,
        format: output.format,
        ...(output.sampleRate ? { sampleRate: output.sampleRate } : {}),
        ...(output.codec ? { codec: output.codec } : {}),
        ...(output.headerless ? { headerless: true } : {}),
        door: 'elevenlabs',
        download,
      },
      signal,
    );
  };

  const audio = async (request: FastifyRequest & SpeechRequestParts, reply: FastifyReply, download: boolean) => {
    const signal = hangUpSignal(reply);
    return sendAudio(request, reply, signal, await speak(request, signal, download));
  };

  r.post(
    '/v1/text-to-speech/:voice_id',
    speechRoute('Text to speech (ElevenLabs compatible)', audioResponse('The speech, in output_format')),
    (request, reply) => audio(request, reply, true),
  );

  r.post(
    '/v1/text-to-speech/:voice_id/stream',
    speechRoute('Text to speech, streamed (ElevenLabs compatible)', audioResponse('The speech, streamed as it is synthesized')),
    (request, reply) => audio(request, reply, false),
  );

  r.post(
    '/v1/text-to-speech/:voice_id/with-timestamps',
    speechRoute(
      'Text to speech with character timings (ElevenLabs compatible)',
      AudioWithTimestamps,
      'The audio file as base64 with each character’s start and end time, derived from the engine’s word timings.',
    ),
    async (request, reply) => {
      const signal = hangUpSignal(reply);
      const speech = await speak(request, signal, true);
      const { bytes, seconds, words } = await collectSpeech(speech);
      const aligner = new CharacterAligner(request.body.text);
      const alignment = concatAlignments([aligner.words(words), aligner.finish(seconds)]);
      reply.header('X-Voice-Id', speech.voiceId).header('Cache-Control', 'no-store');
      return { audio_base64: bytes.toString('base64'), alignment, normalized_alignment: alignment };
    },
  );

  r.post(
    '/v1/text-to-speech/:voice_id/stream/with-timestamps',
    speechRoute(
      'Text to speech, streamed with character timings (ElevenLabs compatible)',
      ndjsonResponse,
      'Newline-delimited JSON: each line holds the next bytes of the audio file (base64) and the characters reached in them, ' +
        'times in seconds from the start of the audio.',
    ),
    async (request, reply) => {
      const signal = hangUpSignal(reply);
      const speech = await speak(request, signal, false);
      reply.type('application/x-ndjson').header('X-Voice-Id', speech.voiceId).header('Cache-Control', 'no-store');
      return sendStreamed(request, reply, signal, timedLines(speech, request.body.text));
    },
  );
}

/**
 * One JSON line per chunk of the file, with the characters whose words start in it. A line is held back until the
 * next chunk comes, so the last one can also carry the characters after the last word (they end with the audio).
 */
async function* timedLines(speech: Speech, text: string): AsyncGenerator<string> {
  const aligner = new CharacterAligner(text);
  const line = (bytes: Uint8Array, alignment: CharacterAlignment): string => {
    const timed = alignment.characters.length > 0 ? { alignment, normalized_alignment: alignment } : {};
    return `${JSON.stringify({ audio_base64: Buffer.from(bytes).toString('base64'), ...timed })}\n`;
  };
  let held: { bytes: Uint8Array; alignment: CharacterAlignment } | null = null;
  let seconds = 0;
  for await (const chunk of speech.chunks) {
    seconds += chunk.seconds;
    if (held) yield line(held.bytes, held.alignment);
    held = { bytes: chunk.bytes, alignment: aligner.words(chunk.words ?? []) };
  }
  const last = held ?? { bytes: new Uint8Array(0), alignment: emptyAlignment() };
  yield line(last.bytes, concatAlignments([last.alignment, aligner.finish(seconds)]));
}
