import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import type { EncodeFormat } from '../../audio/encoders/index.ts';
import type { SpeechRequest } from '../../synth/synthesizer.ts';
import type { EngineId } from '../../synth/voice-spec.ts';
import { requireAuth } from '../plugins/auth.ts';
import { audioResponse } from '../plugins/openapi.ts';
import { resolveSpeechRequest, SPEED_MAX, SPEED_MIN } from '../speech-request.ts';
import { keyIdOf, type Principal } from '../types.ts';
import { sendSpeech } from './speak.ts';

/**
 * OpenAI's voice names onto ours: `voice` for its models (tts-1, tts-1-hd, gpt-4o-mini-tts), and one voice per
 * engine for `model` set to an engine id. Chosen by gender and accent: the flite voices are the clearest English
 * ones, so the most used names (alloy, ash, onyx, fable) get them; the rest spread over espeak's English voices.
 */
export const OPENAI_VOICES: Readonly<Record<string, { voice: string; engines: Readonly<Partial<Record<EngineId, string>>> }>> = {
  alloy: { voice: 'flite-slt', engines: { flite: 'flite-slt', espeak: 'espeak-en-us-female-2' } },
  ash: { voice: 'flite-rms', engines: { flite: 'flite-rms', espeak: 'espeak-en-us-male-1' } },
  ballad: { voice: 'espeak-en-gb-male-1', engines: { flite: 'flite-awb', espeak: 'espeak-en-gb-male-1' } },
  coral: { voice: 'espeak-en-us-female-2', engines: { flite: 'flite-slt', espeak: 'espeak-en-us-female-2' } },
  echo: { voice: 'espeak-en-us-male-1', engines: { flite: 'flite-rms', espeak: 'espeak-en-us-male-1' } },
  fable: { voice: 'flite-awb', engines: { flite: 'flite-awb', espeak: 'espeak-en-gb-rp-male-1' } },
  nova: { voice: 'espeak-en-us-female-1', engines: { flite: 'flite-slt', espeak: 'espeak-en-us-female-1' } },
  onyx: { voice: 'flite-kal16', engines: { flite: 'flite-kal16', espeak: 'espeak-en-us-male-2' } },
  sage: { voice: 'espeak-en-gb-female-2', engines: { flite: 'flite-slt', espeak: 'espeak-en-gb-female-2' } },
  shimmer: { voice: 'espeak-en-gb-female-1', engines: { flite: 'flite-slt', espeak: 'espeak-en-gb-female-1' } },
  verse: { voice: 'espeak-en-gb-rp-male-1', engines: { flite: 'flite-rms', espeak: 'espeak-en-gb-rp-male-1' } },
  marin: { voice: 'flite-slt', engines: { flite: 'flite-slt', espeak: 'espeak-en-us-female-1' } },
  cedar: { voice: 'flite-rms', engines: { flite: 'flite-rms', espeak: 'espeak-en-us-male-2' } },
};

/** OpenAI's speech models (any dated snapshot of gpt-4o-mini-tts too); they all mean "the mapped voice". */
const OPENAI_MODEL = /^(tts-1|tts-1-hd|gpt-4o-mini-tts(-\d{4}-\d{2}-\d{2})?)$/;

/** OpenAI's formats plus ours; their pcm is ours (24 kHz 16-bit LE mono). */
export const OPENAI_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm', 'mulaw'] as const;

const OpenAiSpeechBody = Type.Object(
  {
    model: Type.String({
      maxLength: 100,
      description: 'tts-1, tts-1-hd or gpt-4o-mini-tts (the mapped voice), or an engine id (espeak, flite) to pick that engine',
    }),
    input: Type.String({ description: 'The text (up to MAX_TEXT_CHARS characters)' }),
    voice: Type.Union([Type.String({ maxLength: 200 }), Type.Object({ id: Type.String({ maxLength: 200 }) })], {
      description: 'An OpenAI voice name (alloy, ash, ballad, coral, echo, fable, nova, onyx, sage, shimmer, verse, marin, cedar) or one of our voice ids',
    }),
    response_format: Type.Optional(
      Type.Union(OPENAI_FORMATS.map((f) => Type.Literal(f)), { description: 'mp3 by default; aac is not supported (400)' }),
    ),
    speed: Type.Optional(Type.Number({ minimum: SPEED_MIN, maximum: SPEED_MAX, description: '0.25 to 4, 1 by default' })),
    instructions: Type.Optional(Type.String({ maxLength: 4096, description: 'Accepted and ignored: our engines take no style prompts' })),
    stream_format: Type.Optional(
      Type.Union([Type.Literal('audio'), Type.Literal('sse')], {
        description: 'audio (default): the file, streamed; sse: server-sent events speech.audio.delta (base64) then speech.audio.done',
      }),
    ),
  },
  { examples: [{ model: 'tts-1', input: 'Hello from an OpenAI client.', voice: 'alloy', response_format: 'mp3' }] },
);

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

export interface VoiceChoice {
  voiceId: string;
  /** Set when `model` named an engine: the voice must be one of its voices. */
  engine?: string;
}

/** Which of our voices an OpenAI-style (model, voice) pair means; throws a 400 for a model we do not know. */
export function chooseVoice(model: string, voice: string | { id: string }, engineIds: readonly string[]): VoiceChoice {
  const engine = engineIds.includes(model) ? (model as EngineId) : null;
  if (!engine && !OPENAI_MODEL.test(model)) {
    throw new AppError('validation', `model must be tts-1, tts-1-hd, gpt-4o-mini-tts or an engine id (${engineIds.join(', ')})`);
  }
  const name = typeof voice === 'string' ? voice : voice.id;
  const mapped = OPENAI_VOICES[name.toLowerCase()];
  if (!mapped) return engine ? { voiceId: name, engine } : { voiceId: name };
  if (!engine) return { voiceId: mapped.voice };
  const id = mapped.engines[engine];
  if (!id) throw new AppError('validation', `voice "${name}" has no ${engine} voice; pass one of our voice ids`);
  return { voiceId: id, engine };
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
      preHandler: requireAuth,
      config: { rateLimit: 'api' },
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
      const principal = request.principal;
      if (!principal) throw new AppError('unauthorized');
      const body = request.body;
      const format = body.response_format ?? 'mp3';
      if (format === 'aac') throw new AppError('validation', 'response_format aac is not supported; use mp3, opus, flac, wav or pcm');
      const choice = chooseVoice(body.model, body.voice, app.services.synthesizer.engines.map((e) => e.id));
      // tts-1-hd with one of OpenAI's voice names speaks a neural voice of the same gender when VOICES_DIR has one.
      const openaiName = (typeof body.voice === 'string' ? body.voice : body.voice.id).toLowerCase();
      const hd = body.model === 'tts-1-hd' && !choice.engine && OPENAI_VOICES[openaiName] ? app.services.voices.neuralStandIn(choice.voiceId) : undefined;
      const speech = await resolveSpeechRequest(app, principal.userId, {
        text: body.input,
        voiceId: hd?.id ?? choice.voiceId,
        speed: body.speed,
        engine: choice.engine,
        format: format as EncodeFormat,
      });
      if (body.stream_format === 'sse') return sendSpeechEvents(app, request, reply, principal, speech);
      return sendSpeech(app, request, reply, principal, speech, 'openai');
    },
  );
}

/**
 * OpenAI's `stream_format: "sse"`: each chunk of the encoded file as a base64 `speech.audio.delta` event, then
 * `speech.audio.done` (usage counted in characters: there are no tokens here).
 */
async function sendSpeechEvents(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  principal: Principal,
  speech: SpeechRequest & { voiceId: string },
): Promise<FastifyReply> {
  const abort = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  const labels = { endpoint: 'openai', engine: speech.voice.engine, characters: speech.text.length } as const;
  const iterator = app.services.metrics.meterSpeech(app.services.synthesizer.speak(speech, abort.signal), labels)[Symbol.asyncIterator]();
  // Awaited before the status line, as for the audio answer: early failures stay JSON errors.
  const first = await iterator.next();
  const event = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;

  async function* events(): AsyncGenerator<string> {
    try {
      let next = first;
      while (!next.done) {
        if (next.value.bytes.length > 0) yield event({ type: 'speech.audio.delta', audio: Buffer.from(next.value.bytes).toString('base64') });
        next = await iterator.next();
      }
      const chars = speech.text.length;
      yield event({ type: 'speech.audio.done', usage: { input_tokens: chars, output_tokens: 0, total_tokens: chars } });
      await app.services.usage.record(principal.userId, keyIdOf(principal), chars);
    } catch (err) {
      if (!abort.signal.aborted) request.log.error({ err }, 'synthesis failed mid-stream');
      throw err;
    } finally {
      abort.abort();
      await iterator.return?.();
    }
  }

  reply.type('text/event-stream; charset=utf-8').header('Cache-Control', 'no-store').header('X-Voice-Id', speech.voiceId);
  return reply.send(Readable.from(events(), { objectMode: false }));
}
