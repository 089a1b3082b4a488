import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import { reachableAddresses } from '../../net-addresses.ts';
import { ConnectWyomingBody, WyomingStatus } from '../../schemas/wyoming.ts';
import type { WyomingConnection } from '../../wyoming/link.ts';
import { requireScope } from '../plugins/auth.ts';

const TAG = 'Home Assistant (Wyoming)';

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/**
 * /api/wyoming: connect the Wyoming server (Home Assistant) to one of your keys, which is then billed for its
 * use, with no restart; see where it listens and what it served. WYOMING_API_KEY, when set, decides instead.
 */
export async function wyomingRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { wyomingLink: link } = app.services;

  const status = async (userId: string): Promise<WyomingStatus> => {
    const state = app.services.wyoming?.status() ?? { status: 'stopped' as const };
    const enabled = app.config.wyomingPort !== null;
    const bindHost = enabled ? app.config.wyomingHost : null;
    const port = state.status === 'listening' || state.status === 'unavailable' ? state.port : app.config.wyomingPort;
    const localOnly = bindHost !== null && isLoopback(bindHost);
    const connection: WyomingConnection | null = await link.current();
    return {
      enabled,
      listening: state.status === 'listening',
      problem: state.status === 'unavailable' ? `${state.host}:${state.port} ${state.reason}` : null,
      port,
      bind_host: bindHost,
      local_only: localOnly,
      // Home Assistant on this machine enters the loopback address; elsewhere, one of the machine's own.
      hosts: bindHost === null ? [] : reachableAddresses(bindHost),
      // Another account's key is named as such, nothing more.
      connection: connection && {
        key_id: connection.userId === userId ? connection.keyId : '',
        key_name: connection.userId === userId ? connection.keyName : 'another account’s key',
        masked_key: connection.userId === userId ? connection.maskedKey : '',
        connected_at: connection.connectedAt,
        source: connection.source,
        yours: connection.userId === userId,
      },
      requests: (await link.recent(userId)).map((q) => ({
        at: q.at,
        client: q.client,
        voice_id: q.voiceId,
        characters: q.characters,
        audio_seconds: q.audioSeconds,
        outcome: q.outcome,
      })),
    };
  };

  r.get(
    '/api/wyoming',
    {
      preHandler: requireScope('keys'),
      schema: {
        summary: 'Wyoming status',
        description:
          'Where the Wyoming server listens (the Host and Port to enter in Home Assistant), which key it bills, and the last requests it served.',
        tags: [TAG],
        response: { 200: WyomingStatus },
      },
    },
    async (request) => status(userIdOf(request.principal)),
  );

  r.put(
    '/api/wyoming',
    {
      preHandler: requireScope('keys'),
      schema: {
        summary: 'Connect Wyoming to a key',
        description:
          'Bills Wyoming’s use to one of your active keys, at once, on every node. Refused (403) while another account’s key is connected, ' +
          'and while WYOMING_API_KEY decides.',
        tags: [TAG],
        body: ConnectWyomingBody,
        response: { 200: WyomingStatus },
      },
    },
    async (request) => {
      const userId = userIdOf(request.principal);
      await link.connect(userId, request.body.key_id);
      request.log.info({ keyId: request.body.key_id }, 'Wyoming connected to a key');
      return status(userId);
    },
  );

  r.delete(
    '/api/wyoming',
    {
      preHandler: requireScope('keys'),
      schema: {
        summary: 'Disconnect Wyoming',
        description:
          'Wyoming then answers `describe` but refuses synthesis until a key is connected again. Only the connected key’s owner may.',
        tags: [TAG],
        response: { 200: WyomingStatus },
      },
    },
    async (request) => {
      const userId = userIdOf(request.principal);
      if (!(await link.disconnect(userId)))
        throw new AppError('forbidden', 'Wyoming bills a key of another account; only its owner may disconnect it');
      return status(userId);
    },
  );
}

function userIdOf(principal: { userId: string } | null): string {
  if (!principal) throw new AppError('unauthorized');
  return principal.userId;
}
