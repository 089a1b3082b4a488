// Two real service processes behind "one address": the same PostgreSQL schema and Redis prefix, nothing else in
// common (each has its own DATA_DIR), and one SMTP sink for the sign-in mail of both.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess, type ServiceProcess } from './process.ts';
import { SmtpSink } from './smtp-sink.ts';
import { deleteRedisPrefix, dropSchema, randomPrefix, randomSchema, TEST_PG_URL, TEST_REDIS_URL } from './stores.ts';

export const NODES_ORIGIN = 'http://voxsmith.test';

export interface TwoNodes {
  a: ServiceProcess;
  b: ServiceProcess;
  mail: SmtpSink;
  /** The PostgreSQL schema both nodes use. */
  schema: string;
  /** Stops both nodes (node a with `signalA`), the mail sink, and removes the schema, the Redis keys and the data folders. */
  stop(signalA?: NodeJS.Signals): Promise<void>;
}

/** Starts both nodes at once on an empty schema (the migration lock makes them take turns), with `env` on top of the shared settings. */
export async function startTwoNodes(tag: string, env: Record<string, string>): Promise<TwoNodes> {
  const schema = randomSchema(tag);
  const prefix = randomPrefix(tag);
  const mail = new SmtpSink();
  const dirs = [mkdtempSync(join(tmpdir(), `voxsmith-${tag}-a-`)), mkdtempSync(join(tmpdir(), `voxsmith-${tag}-b-`))];
  const shared = {
    DATABASE_URL: `${TEST_PG_URL}?schema=${schema}`,
    REDIS_URL: `${TEST_REDIS_URL}/?prefix=${prefix}`,
    SMTP_URL: await mail.start(),
    PUBLIC_URL: NODES_ORIGIN,
    WORKERS: '1',
    ...env,
  };
  const [a, b] = await Promise.all([startProcess({ ...shared, DATA_DIR: dirs[0] }), startProcess({ ...shared, DATA_DIR: dirs[1] })]);
  return {
    a,
    b,
    mail,
    schema,
    async stop(signalA) {
      await Promise.all([a.stop(signalA), b.stop()]);
      await mail.stop();
      await dropSchema(schema);
      await deleteRedisPrefix(prefix);
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A request to one node; a cookie comes with the service's Origin (as the dashboard sends it). */
export function callNode(
  node: ServiceProcess,
  path: string,
  init: { method?: string; json?: unknown; body?: FormData; cookie?: string; bearer?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  if (init.cookie) {
    headers.cookie = init.cookie;
    headers.origin = NODES_ORIGIN;
  }
  if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
  return fetch(node.base + path, {
    method: init.method ?? (init.json !== undefined || init.body ? 'POST' : 'GET'),
    headers,
    body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
  });
}
