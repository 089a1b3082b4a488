import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError, type ErrorCode } from '../../errors.ts';
import { isValidLanguageQuery } from '../../voices/filter.ts';
import { CatalogError, filterCatalog } from '../../voices/install/catalog.ts';
import { NotInstalledError } from '../../voices/install/installer.ts';
import type { InstallJob as Job } from '../../voices/install/voice-installs.ts';
import {
  CancelResponse,
  CatalogList,
  CatalogQuery,
  InstallBody,
  InstalledList,
  InstalledParams,
  InstallList,
  InstallResponse,
  Removed,
  type InstallJob,
} from '../../schemas/voice-installs.ts';
import { checkOrigin, checkScope } from '../plugins/auth.ts';

/** `work`, with the catalogue's refusal as the API error `code`. */
async function catalogErrorAs<T>(code: ErrorCode, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof CatalogError) throw new AppError(code, err.message);
    throw err;
  }
}

function shape(job: Job): InstallJob {
  return {
    name: job.name,
    status: job.status,
    received: job.received,
    total: job.total,
    bytes_per_second: job.bytesPerSecond,
    seconds_left: job.secondsLeft,
    ...(job.error ? { error: job.error } : {}),
    started_at: job.startedAt,
    ...(job.finishedAt ? { finished_at: job.finishedAt } : {}),
  };
}

/**
 * The operator's natural voices: browse the catalogue, install (progress polled from /installs), remove. Only
 * an operator (the first account, ADMIN_EMAILS) may; a voice installed here speaks on every door within
 * seconds, on every node that shares VOICES_DIR.
 */
export async function voiceInstallRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { voiceInstalls, operators, users, voicesDir } = app.services;
  const tags = ['Natural voices (operator)'];
  const security: { [scheme: string]: string[] }[] = [{ session: [] }, { apiKey: [] }];

  async function requireOperator(request: FastifyRequest): Promise<void> {
    if (!request.principal) throw new AppError('unauthorized');
    if (request.principal.via === 'session') checkOrigin(app, request);
    // A key acts for its operator only within its scopes: installing and removing voices is voice management.
    checkScope(request.principal, 'voices');
    const user = await users.findById(request.principal.userId);
    if (!user || !(await operators.isOperator(user))) throw new AppError('operator_only');
  }

  const catalogOrFail = () => catalogErrorAs('catalog_unavailable', () => voiceInstalls.catalog());

  r.get(
    '/api/admin/voices/catalog',
    {
      preHandler: requireOperator,
      schema: {
        summary: 'List installable natural voices',
        description:
          'Operator only. Piper’s catalogue (VOICES_CATALOG_URL) and the Kokoro v1.0 bundles, by language, quality or engine. 503 `catalog_unavailable` when the catalogue cannot be read.',
        tags,
        security,
        querystring: CatalogQuery,
        response: { 200: CatalogList },
      },
    },
    async (request) => {
      const { language, quality, engine } = request.query;
      if (language && !isValidLanguageQuery(language))
        throw new AppError('validation', 'language must be a BCP 47 language tag such as "en" or "de-DE"');
      const installed = new Set((await voiceInstalls.installed()).map((v) => v.name));
      const found = filterCatalog(await catalogOrFail(), { language, quality, engine });
      return {
        voices: found.map((v) => ({
          name: v.name,
          engine: v.engine,
          languages: v.languages,
          language_name: v.languageName,
          quality: v.quality,
          speakers: v.speakers,
          gender: v.gender,
          size: v.size,
          description: v.description,
          installed: installed.has(v.name),
        })),
      };
    },
  );

  r.get(
    '/api/admin/voices/installed',
    {
      preHandler: requireOperator,
      schema: {
        summary: 'List installed natural voices',
        description: 'Operator only. What VOICES_DIR holds, with the voice ids each adds.',
        tags,
        security,
        response: { 200: InstalledList },
      },
    },
    async () => {
      const catalog = voicesDir.catalog();
      return {
        voices: (await voiceInstalls.installed()).map((v) => {
          const stem = v.files[0].slice(0, -'.onnx'.length);
          const ids = catalog.voices.filter((x) => x.spec.base === stem || x.spec.base.startsWith(`${stem}/`)).map((x) => x.id);
          return { name: v.name, engine: v.engine, size: v.size, files: v.files, voice_ids: ids };
        }),
      };
    },
  );

  r.get(
    '/api/admin/voices/installs',
    {
      preHandler: requireOperator,
      schema: {
        summary: 'Installs in progress',
        description: 'Operator only. Poll it for a progress bar.',
        tags,
        security,
        response: { 200: InstallList },
      },
    },
    async (_request, reply) => {
      reply.header('Cache-Control', 'no-store');
      return { installs: voiceInstalls.list().map(shape) };
    },
  );

  r.post(
    '/api/admin/voices/installs',
    {
      preHandler: requireOperator,
      schema: {
        summary: 'Install a natural voice',
        description:
          'Operator only. Starts downloading a catalogue voice into VOICES_DIR (resumed on a cut, size and MD5/SHA-256 verified, moved into place atomically) and answers at once with 202; ' +
          'follow it on GET /api/admin/voices/installs. The voice speaks on every door as soon as it is installed.',
        tags,
        security,
        body: InstallBody,
        response: { 202: InstallResponse },
      },
    },
    async (request, reply) => {
      await catalogOrFail();
      // A name the catalogue does not hold.
      const { job } = await catalogErrorAs('not_found', () => voiceInstalls.start(request.body.name));
      return reply.code(202).send({ install: shape(job) });
    },
  );

  r.delete(
    '/api/admin/voices/installs/:name',
    {
      preHandler: requireOperator,
      schema: {
        summary: 'Cancel an install',
        description:
          'Operator only. Stops the download of an install in progress and deletes its partial files; answers once it has stopped, with status `cancelled`. 404 `not_found` when no install of that name is running.',
        tags,
        security,
        params: InstalledParams,
        response: { 200: CancelResponse },
      },
    },
    async (request) => {
      const { name } = request.params;
      const job = await voiceInstalls.cancel(name);
      if (!job) throw new AppError('not_found', `No install of ${name} is in progress`);
      return { install: shape(job) };
    },
  );

  r.delete(
    '/api/admin/voices/installed/:name',
    {
      preHandler: requireOperator,
      schema: {
        summary: 'Remove an installed natural voice',
        description: 'Operator only. Deletes its files from VOICES_DIR; its voices are gone from every door within seconds.',
        tags,
        security,
        params: InstalledParams,
        response: { 200: Removed },
      },
    },
    async (request) => {
      const { name } = request.params;
      try {
        return { name, removed: await voiceInstalls.remove(name) };
      } catch (err) {
        if (err instanceof NotInstalledError) throw new AppError('voice_not_installed', err.message);
        throw err;
      }
    },
  );
}
