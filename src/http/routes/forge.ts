import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors.ts';
import { MAX_UPLOAD_BYTES, toOwnedPublicVoice } from '../../voices/forge.ts';
import { requireAuth } from '../plugins/auth.ts';

const MULTIPART_LIMITS = {
  fileSize: MAX_UPLOAD_BYTES,
  files: 1,
  fields: 4,
  fieldSize: 1024,
  fieldNameSize: 100,
  parts: 6,
  headerPairs: 50,
};

function userOf(request: { principal: { userId: string } | null }): string {
  if (!request.principal) throw new AppError('unauthorized');
  return request.principal.userId;
}

/**
 * POST /v1/forge/clone: multipart only. Its own scope drops the app's JSON parser and adds the multipart
 * one, so any other body is refused with 415 before it is read; the upload is capped at 10 MiB (413).
 */
async function cloneRoute(app: FastifyInstance): Promise<void> {
  app.removeAllContentTypeParsers();
  await app.register(multipart, { limits: MULTIPART_LIMITS });

  app.post('/v1/forge/clone', { preHandler: requireAuth, config: { rateLimit: 'api' } }, async (request, reply) => {
    const userId = userOf(request);
    if (!request.isMultipart()) {
      throw new AppError('unsupported_media_type', 'Send multipart/form-data with the fields audio (a file), name and language');
    }
    let audio: Buffer | undefined;
    const fields = new Map<string, string>();
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        // Reading to the end enforces the size limit (toBuffer throws the 413); a stray file is drained.
        if (part.fieldname === 'audio') audio = await part.toBuffer();
        else await part.toBuffer();
      } else {
        if (part.valueTruncated) throw new AppError('validation', `${part.fieldname} is too long`);
        if (typeof part.value === 'string') fields.set(part.fieldname, part.value);
      }
    }
    if (audio === undefined) throw new AppError('validation', 'audio is required: an audio file in the multipart field "audio"');
    if (audio.length === 0) throw new AppError('invalid_audio', 'The audio file is empty');
    const voice = await app.services.forge.clone(userId, { audio, name: fields.get('name'), language: fields.get('language') });
    return reply.status(201).send({ voice: toOwnedPublicVoice(voice) });
  });
}

/** POST /v1/forge/breed: JSON only (the multipart parser lives in the clone route's scope). */
async function breedRoute(app: FastifyInstance): Promise<void> {
  app.post('/v1/forge/breed', { preHandler: requireAuth, config: { rateLimit: 'api' } }, async (request, reply) => {
    const userId = userOf(request);
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new AppError('validation', 'Send a JSON object: {"parent_a", "parent_b", "name", "mutation_rate", "seed"?}');
    }
    const b = body as Record<string, unknown>;
    const voice = await app.services.forge.breed(userId, {
      parentA: b.parent_a,
      parentB: b.parent_b,
      name: b.name,
      mutationRate: b.mutation_rate,
      seed: b.seed,
    });
    return reply.status(201).send({ voice: toOwnedPublicVoice(voice) });
  });
}

export async function forgeRoutes(app: FastifyInstance): Promise<void> {
  await app.register(cloneRoute);
  await app.register(breedRoute);
}
