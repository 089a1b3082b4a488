import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import { BreedBody, CloneUpload, ForgedVoice, MAX_UPLOAD_BYTES } from '../../schemas/forge.ts';
import { toOwnedPublicVoice } from '../../forge/forge.ts';
import { readMultipartBody } from '../multipart-body.ts';
import { requireScope } from '../plugins/auth.ts';
import { hangUpSignal, speechCaller } from '../speech-reply.ts';

const MULTIPART_LIMITS = {
  fileSize: MAX_UPLOAD_BYTES,
  files: 1,
  fields: 5,
  // The transcript is the longest field (MAX_TRANSCRIPT_CHARS characters, up to 3 bytes each in UTF-8).
  fieldSize: 12 * 1024,
  fieldNameSize: 100,
  parts: 7,
  headerPairs: 50,
};

function userOf(request: { principal: { userId: string } | null }): string {
  if (!request.principal) throw new AppError('unauthorized');
  return request.principal.userId;
}

/** The clone upload (CloneUpload) into `request.body`: the file `audio`, the text fields as strings. */
async function readUpload(request: FastifyRequest): Promise<void> {
  if (!request.isMultipart()) {
    throw new AppError(
      'unsupported_media_type',
      'Send multipart/form-data with the fields audio (a file), name, language and (optional) transcript',
    );
  }
  await readMultipartBody(request, 'audio');
}

/**
 * POST /v1/forge/clone: multipart only. Its own scope drops the app's JSON parser and adds the multipart
 * one, so any other body is refused with 415 before it is read; the upload is capped at 10 MiB (413).
 */
async function cloneRoute(app: FastifyInstance): Promise<void> {
  app.removeAllContentTypeParsers();
  await app.register(multipart, { limits: MULTIPART_LIMITS });

  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/v1/forge/clone',
    {
      // Who is asking is settled before a byte of the upload is read.
      preValidation: [requireScope('voices'), readUpload],
      config: { rateLimit: 'api' },
      schema: {
        summary: 'Clone a voice',
        description:
          'multipart/form-data: `audio` (a speech sample: wav, mp3, ogg, flac), `name`, `language`, optional `transcript`. Answers 201 `{voice}`; ' +
          '`voice.features.fit` holds the clone against its sample: `pitch_semitones` on a held-out text, `rate_percent` its pace on the same words (+ = faster).',
        consumes: ['multipart/form-data'],
        body: CloneUpload,
        response: { 201: ForgedVoice },
      },
    },
    async (request, reply) => {
      const caller = speechCaller(request.principal);
      if (request.body.audio.length === 0) throw new AppError('invalid_audio', 'The audio file is empty');
      const voice = await app.services.forge.clone(caller, request.body, hangUpSignal(reply));
      return reply.status(201).send({ voice: toOwnedPublicVoice(voice) });
    },
  );
}

/** POST /v1/forge/breed: JSON only (the multipart parser lives in the clone route's scope). */
async function breedRoute(app: FastifyInstance): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/v1/forge/breed',
    {
      preHandler: requireScope('voices'),
      config: { rateLimit: 'api' },
      schema: {
        summary: 'Breed two voices',
        description:
          'Crossover of the parents’ genes plus mutation scaled by `mutation_rate`; `seed` makes it repeatable. Answers 201 `{voice}` with `parents`.',
        body: BreedBody,
        response: { 201: ForgedVoice },
      },
    },
    async (request, reply) => {
      const voice = await app.services.forge.breed(userOf(request), request.body);
      return reply.status(201).send({ voice: toOwnedPublicVoice(voice) });
    },
  );
}

export async function forgeRoutes(app: FastifyInstance): Promise<void> {
  await app.register(cloneRoute);
  await app.register(breedRoute);
}
