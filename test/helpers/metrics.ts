import assert from 'node:assert/strict';
import type { TestServer } from './server.ts';

/** The value of a metric without labels in the server's /metrics; fails when it is not exported. */
export async function metricValue(server: TestServer, name: string): Promise<number> {
  const text = await (await server.request('/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  assert.ok(line, `${name} is exported`);
  return Number(line.slice(name.length + 1));
}
