import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors.ts';

/** The SDK as npm packs it (scripts/pack-client.mjs, run by `npm ci` and `npm run build:client`). */
export const SDK_PACKAGE = fileURLToPath(new URL('../../../client/pack/voxsmith-client.tgz', import.meta.url));

/**
 * GET /sdk/voxsmith-client.tgz: the typed client package, so a project installs it from the running server
 * (`npm install http://host:8080/sdk/voxsmith-client.tgz`) without a registry. Public: it is the client's code.
 */
export async function sdkRoutes(app: FastifyInstance, options: { path?: string } = {}): Promise<void> {
  const path = options.path ?? SDK_PACKAGE;
  app.get(
    '/sdk/voxsmith-client.tgz',
    {
      config: { rateLimit: 'api' },
      schema: {
        summary: 'The client SDK package',
        description: '`@voxsmith/client` as an npm tarball: `npm install http://<host>:<port>/sdk/voxsmith-client.tgz`.',
        tags: ['Client SDK'],
        response: {
          200: { description: 'The package', content: { 'application/gzip': { schema: { type: 'string', format: 'binary' } } } },
          304: { description: 'Unchanged since the ETag sent in If-None-Match', type: 'null' },
        },
      },
    },
    async (request, reply) => {
      if (!existsSync(path)) throw new AppError('unavailable', 'The SDK package is not built on this server: run npm run build:client');
      const modified = statSync(path).mtime;
      // Revalidated every time (it changes with the server's version), answered 304 when unchanged.
      const etag = `"${modified.getTime().toString(36)}"`;
      reply.header('Cache-Control', 'no-cache').header('ETag', etag).header('Last-Modified', modified.toUTCString());
      if (request.headers['if-none-match'] === etag) return reply.status(304).send();
      return reply
        .type('application/gzip')
        .header('Content-Disposition', 'attachment; filename="voxsmith-client.tgz"')
        .send(readFileSync(path));
    },
  );
}
