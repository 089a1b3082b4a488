import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { PhonemizeBody, PhonemizeResponse } from '../../schemas/phonemize.ts';
import { hangUpSignal, speechCaller, speechRouteOptions } from '../speech-reply.ts';

/** POST /v1/phonemize: what a voice's engine will be given for a text, for debugging pronunciations. */
export async function phonemizeRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/v1/phonemize',
    {
      ...speechRouteOptions,
      schema: {
        summary: 'See what will be spoken',
        description:
          'The normalized text (your lexicons applied, numbers, dates and abbreviations spelled out) and the phonemes of each word. ' +
          'espeak, Piper and Kokoro voices report espeak-ng IPA (what they speak); flite voices report flite’s own phones (ARPAbet, from its ' +
          'CMU lexicon and letter-to-sound rules). A lexicon phoneme rule reports its phonemes as written, in its alphabet (flite, which takes ' +
          'no phonemes, says the written word and reports its phones). `lexicons` works as on /v1/speak; without it your default lexicon applies.',
        body: PhonemizeBody,
        response: { 200: PhonemizeResponse },
      },
    },
    async (request, reply) => {
      const { text, voice_id, lexicons } = request.body;
      const r = await app.services.speech.phonemize(
        speechCaller(request.principal),
        { text, voiceId: voice_id, lexicons },
        hangUpSignal(reply),
      );
      return { voice_id: r.voiceId, engine: r.engine, alphabet: r.alphabet, normalized: r.normalized, words: r.words };
    },
  );
}
