import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import {
  DEFAULT_SPEECH_FORMAT,
  OPENAI_VOICE_NAMES,
  OpenAiSpeechBody,
  SPEECH_FORMATS,
  type OpenAiSpeechEvent,
} from '../../schemas/speech.ts';
import type { Speech } from '../../speech/speech-service.ts';
import { Type } from '@sinclair/typebox';
import { AudioModelList, AudioVoiceList, ModelParams, OPENAI_SPEECH_MODELS, OpenAiModel, OpenAiModelList } from '../../schemas/openai.ts';
import { ElevenLabsModelList, type ElevenLabsModel } from '../../schemas/elevenlabs.ts';
import { XI_API_KEY_HEADER } from '../plugins/auth.ts';
import { speedFromInstructions } from '../../speech/openai-instructions.ts';
import { voiceLabels } from '../../voices/labels.ts';
import { acceptedLanguages } from '../../voices/order.ts';
import { audioResponse } from '../plugins/openapi.ts';
import { hangUpSignal, sendAudio, sendStreamed, speechCaller, speechRouteOptions } from '../speech-reply.ts';

/** A language's English name, or its code when ICU has none. */
function languageName(names: Intl.DisplayNames, code: string): string {
  try {
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}

function withEventStream(response: Record<string, unknown>): Record<string, unknown> {
  const content = response.content as Record<string, unknown>;
  return {
    ...response,
    content: {
      ...content,
      'text/event-stream': {
        schema: {
          type: 'string',
          description: 'data: {"type":"speech.audio.delta","audio":"<base64>"} … data: {"type":"speech.audio.done","usage":{…}}',
        },
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

  const model = (id: string): OpenAiModel => ({ id, object: 'model', created, owned_by: 'voxsmith' });

  r.get(
    '/v1/models',
    {
      ...listOptions,
      schema: {
        summary: 'List models (OpenAI and ElevenLabs compatible)',
        description:
          'Public. OpenAI’s shape: every value `model` takes on /v1/audio/speech (OpenAI’s speech model names and the ids of our engines ' +
          'that have voices). With an `xi-api-key` header (an ElevenLabs client), their shape instead: a JSON array of our engines, ' +
          'each with the languages its voices speak.',
        tags: ['OpenAI compatible', 'ElevenLabs compatible'],
        response: { 200: Type.Union([OpenAiModelList, ElevenLabsModelList]) },
      },
    },
    async (request) => {
      if (request.headers[XI_API_KEY_HEADER] !== undefined && request.headers.authorization === undefined) return elevenLabsModels();
      return { object: 'list' as const, data: (await modelIds()).map(model) };
    },
  );

  r.get(
    '/v1/models/:model',
    {
      ...listOptions,
      schema: {
        summary: 'One model (OpenAI compatible)',
        description: 'Public. A value of /v1/models (the OpenAI SDK’s `models.retrieve`); an unknown one is 404.',
        tags: ['OpenAI compatible'],
        params: ModelParams,
        response: { 200: OpenAiModel },
      },
    },
    async (request) => {
      const id = request.params.model;
      if (!(await modelIds()).includes(id)) throw new AppError('not_found', `No model "${id.slice(0, 100)}": GET /v1/models lists them`);
      return model(id);
    },
  );

  /** Our engines as ElevenLabs models: what their SDK's models.list() reads. */
  const elevenLabsModels = async (): Promise<ElevenLabsModel[]> => {
    const all = await voices.list({}, null);
    const names = new Intl.DisplayNames(['en'], { type: 'language' });
    const { maxTextChars } = app.config;
    return speech.engineIds().flatMap((engine) => {
      const spoken = all.filter((v) => v.engine === engine);
      if (spoken.length === 0) return [];
      const codes = [...new Set(spoken.map((v) => v.language.split('-')[0].toLowerCase()))].sort();
      return [
        {
          model_id: engine,
          name: `Voxsmith ${engine}`,
          description: `The ${engine} engine: ${spoken.length} voices in ${codes.length} languages. Pick the voice; model_id is accepted and ignored.`,
          can_be_finetuned: false,
          can_do_text_to_speech: true,
          can_do_voice_conversion: false,
          can_use_style: false,
          can_use_speaker_boost: false,
          serves_pro_voices: false,
          token_cost_factor: 1,
          requires_alpha_access: false,
          max_characters_request_free_user: maxTextChars,
          max_characters_request_subscribed_user: maxTextChars,
          maximum_text_length_per_request: maxTextChars,
          languages: codes.map((code) => ({ language_id: code, name: languageName(names, code) })),
          model_rates: { character_cost_multiplier: 1 },
          concurrency_group: 'standard',
        },
      ];
    });
  };

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
      const all = await voices.list({}, request.principal?.userId ?? null, {
        languages: acceptedLanguages(request.headers['accept-language']),
      });
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
      if (format === 'aac')
        throw new AppError('validation', `response_format aac is not supported; use one of: ${SPEECH_FORMATS.join(', ')}`);
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
