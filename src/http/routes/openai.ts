import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import { DEFAULT_SPEECH_FORMAT, OpenAiSpeechBody, type OpenAiSpeechEvent } from '../../schemas/speech.ts';
import type { Speech } from '../../speech/speech-service.ts';
import { audioResponse } from '../plugins/openapi.ts';
import { hangUpSignal, sendAudio, sendStreamed, speechCaller, speechRouteOptions } from '../speech-reply.ts';

function withEventStream(response: Record<string, unknown>): Record<string, unknown> {
  const content = response.content as Record<string, unknown>;
  return {
    ...response,
    content: {
      ...content,
      'text/event-stream': {
        schema: { type: 'string', description: 'data: {"type":"speech.audio.delta","audio":"<base64>"} … data: {"type":"speech.audio.done","usage":{…}}' },
      },
    },
  };
}

/**
 * POST /v1/audio/speech: OpenAI's speech API over our pipeline, so OpenAI SDKs work with only the base URL and
 * key changed. Auth, limits and errors are ours (`{"error": "<string>"}`, which their SDKs report as the message).
 */
export async function openaiRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/v1/audio/speech',
    {
      ...speechRouteOptions,
      schema: {
        summary: 'Synthesize speech (OpenAI compatible)',
        description:
          'Accepts the body of OpenAI’s `POST /v1/audio/speech`. Point an OpenAI client at `{base_url}/v1` with a Voxsmith API key. ' +
          'Voice names map onto ours (see the README); our own voice ids work too. Errors keep our shape: `{"error": "<string>", "code", "request_id"}`.',
        tags: ['OpenAI compatible'],
        body: OpenAiSpeechBody,
        response: {
          200: withEventStream(audioResponse('The speech; with stream_format "sse", text/event-stream events instead')),
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const format = body.response_format ?? DEFAULT_SPEECH_FORMAT;
      if (format === 'aac') throw new AppError('validation', 'response_format aac is not supported; use mp3, opus, flac, wav or pcm');
      const choice = app.services.speech.chooseOpenAiVoice(body.model, body.voice);
      const sse = body.stream_format === 'sse';
      const signal = hangUpSignal(reply);
      const speech = await app.services.speech.speak(
        speechCaller(request.principal),
        { text: body.input, voiceId: choice.voiceId, speed: body.speed, engine: choice.engine, format, door: 'openai', download: !sse },
        signal,
      );
      if (!sse) return sendAudio(request, reply, signal, speech);
      reply.type('text/event-stream; charset=utf-8').header('Cache-Control', 'no-store').header('X-Voice-Id', speech.voiceId);
      return sendStreamed(request, reply, signal, speechEvents(speech));
    },
  );
}

/**
 * OpenAI's `stream_format: "sse"`: each chunk of the encoded file as a base64 `speech.audio.delta` event, then
 * `speech.audio.done` (usage counted in characters: there are no tokens here).
 */
async function* speechEvents(speech: Speech): AsyncGenerator<string> {
  const event = (data: OpenAiSpeechEvent) => `data: ${JSON.stringify(data)}\n\n`;
  for await (const chunk of speech.chunks) {
    if (chunk.bytes.length > 0) yield event({ type: 'speech.audio.delta', audio: Buffer.from(chunk.bytes).toString('base64') });
  }
  const chars = speech.characters;
  yield event({ type: 'speech.audio.done', usage: { input_tokens: chars, output_tokens: 0, total_tokens: chars } });
}
