import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import { DEFAULT_SPEECH_FORMAT, OPENAI_VOICE_NAMES, OpenAiSpeechBody, SPEECH_FORMATS, type OpenAiSpeechEvent } from '../../schemas/speech.ts';
import type { Speech } from '../../speech/speech-service.ts';
import { AudioModelList, AudioVoiceList, OPENAI_SPEECH_MODELS, OpenAiModelList } from '../../schemas/openai.ts';
import { speedFromInstructions } from '../../speech/openai-instructions.ts';
import { voiceLabels } from '../../voices/labels.ts';
import { acceptedLanguages } from '../../voices/order.ts';
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
  const { speech, voices } = app.services;
  // The models are this server's engines, so they are as old as the process.
  const created = Math.floor(Date.now() / 1000);
  // Engines with no voice installed (piper, kokoro without VOICES_DIR models) would only refuse every voice.
  const modelIds = async (): Promise<string[]> => {
    const spoken = new Set((await voices.list({}, null)).map((v) => v.engine as string));
    return [...OPENAI_SPEECH_MODELS, ...speech.engineIds().filter((id) => spoken.has(id))];
  };
  // Public, like /api/voices: Open WebUI asks for these lists without a key.
  const listOptions = { config: { rateLimit: 'api' } } as const;

  r.get(
    '/v1/models',
    {
      ...listOptions,
      schema: {
        summary: 'List models (OpenAI compatible)',
        description: 'Public. Every value `model` takes on /v1/audio/speech: OpenAI’s speech model names and the ids of our engines that have voices.',
        tags: ['OpenAI compatible'],
        response: { 200: OpenAiModelList },
      },
    },
    async () => ({ object: 'list' as const, data: (await modelIds()).map((id) => ({ id, object: 'model' as const, created, owned_by: 'voxsmith' })) }),
  );

  r.get(
    '/v1/audio/models',
    {
      ...listOptions,
      schema: {
        summary: 'List speech models (Open WebUI)',
        description: 'Public. The same ids as /v1/models, in the shape Open WebUI reads for its TTS model list.',
        tags: ['OpenAI compatible'],
        response: { 200: AudioModelList },
      },
    },
    async () => ({ models: (await modelIds()).map((id) => ({ id })) }),
  );

  r.get(
    '/v1/audio/voices',
    {
      ...listOptions,
      schema: {
        summary: 'List voices (Open WebUI)',
        description:
          'Public. OpenAI’s voice names (with the voice each speaks: a natural one of the same gender when installed), then every voice, ' +
          'natural voices and the languages of Accept-Language first, with a key or session your own voices too: each `id` is a value for `voice` on /v1/audio/speech.',
        tags: ['OpenAI compatible'],
        response: { 200: AudioVoiceList },
      },
    },
    async (request) => {
      const all = await voices.list({}, request.principal?.userId ?? null, { languages: acceptedLanguages(request.headers['accept-language']) });
      const labels = voiceLabels(all);
      const named = OPENAI_VOICE_NAMES.map((name) => {
        const id = speech.chooseOpenAiVoice('tts-1', name).voiceId;
        return { id: name, name: `${name} → ${labels.get(id) ?? id}` };
      });
      return { voices: [...named, ...all.map((v) => ({ id: v.id, name: labels.get(v.id) ?? v.name }))] };
    },
  );

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
      if (format === 'aac') throw new AppError('validation', `response_format aac is not supported; use one of: ${SPEECH_FORMATS.join(', ')}`);
      const choice = speech.chooseOpenAiVoice(body.model, body.voice);
      const sse = body.stream_format === 'sse';
      const signal = hangUpSignal(reply);
      const spoken = await speech.speak(
        speechCaller(request.principal),
        {
          text: body.input,
          voiceId: choice.voiceId,
          speed: body.speed ?? speedFromInstructions(body.instructions),
          engine: choice.engine,
          format,
          sampleRate: body.sample_rate,
          door: 'openai',
          download: !sse,
          lexicons: body.lexicons,
        },
        signal,
      );
      if (!sse) return sendAudio(request, reply, signal, spoken);
      reply.type('text/event-stream; charset=utf-8').header('Cache-Control', 'no-store').header('X-Voice-Id', spoken.voiceId);
      return sendStreamed(request, reply, signal, speechEvents(spoken));
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
