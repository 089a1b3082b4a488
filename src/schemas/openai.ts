// The listing shapes of the OpenAI-compatible surface, as OpenAI's SDKs and Open WebUI read them. Pure TypeBox.
import { Type, type Static } from '@sinclair/typebox';

/** OpenAI's own speech model names; every one of them means "the mapped voice" here. */
export const OPENAI_SPEECH_MODELS = ['tts-1', 'tts-1-hd', 'gpt-4o-mini-tts'] as const;

/** One model in OpenAI's shape (`GET /v1/models/{id}`, and each entry of the list). */
export const OpenAiModel = Type.Object({
  id: Type.String({ description: 'A value for `model`: an OpenAI speech model name or one of our engine ids' }),
  object: Type.Literal('model'),
  created: Type.Integer({ description: 'Unix seconds: when this server started (the models come with it)' }),
  owned_by: Type.String(),
});
export type OpenAiModel = Static<typeof OpenAiModel>;

/** `GET /v1/models`: OpenAI's list shape. */
export const OpenAiModelList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(OpenAiModel),
});
export type OpenAiModelList = Static<typeof OpenAiModelList>;

/** `GET /v1/audio/models`: what Open WebUI reads for its TTS model list. */
export const AudioModelList = Type.Object({ models: Type.Array(Type.Object({ id: Type.String() })) });
export type AudioModelList = Static<typeof AudioModelList>;

/** `GET /v1/audio/voices`: what Open WebUI reads for its voice list (id goes into `voice`, name is shown). */
export const AudioVoiceList = Type.Object({ voices: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })) });
export type AudioVoiceList = Static<typeof AudioVoiceList>;

export const ModelParams = Type.Object({
  model: Type.String({ minLength: 1, maxLength: 100, description: 'A model id from GET /v1/models' }),
});
