// compose.yaml (one node) and compose.scale.yaml (nodes on PostgreSQL and Redis behind a load balancer) cannot be
// run here (no Docker engine), so they are checked as files: every env name a Voxsmith service sets is one the
// config module reads, and the config module accepts the values; every service has an image, a health check and
// its volumes declared; the scale-out nodes each keep their own /data, share the voices, reach the database,
// Redis and mail by services of the same file, and the load balancer passes WebSocket upgrades to all of them.
// The image itself is built and run by scripts/container-test.sh.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.ts';

const root = new URL('../../', import.meta.url);

interface Service {
  image?: string;
  build?: string;
  ports?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test?: string[] };
  depends_on?: Record<string, { condition: string }>;
  configs?: Array<{ source: string; target: string }>;
}
interface ComposeFile {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
  configs?: Record<string, { content?: string }>;
}

function compose(name: string): ComposeFile {
  return parse(readFileSync(new URL(name, root), 'utf8'), { merge: true }) as ComposeFile;
}

/** The image's own environment, from the Dockerfile's runtime stage (the last FROM on). */
function imageEnv(): Record<string, string> {
  const dockerfile = readFileSync(new URL('Dockerfile', root), 'utf8').replace(/\\\n/g, ' ');
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const env: Record<string, string> = {};
  for (const line of runtime.split('\n').filter((l) => l.startsWith('ENV '))) {
    for (const [, name, value] of line.slice(4).matchAll(/([A-Za-z_][A-Za-z0-9_]*)=(\S+)/g)) env[name] = value;
  }
  return env;
}

/** Loads the config from `env` and returns the names it read: a name never read is one the service ignores. */
function namesRead(env: Record<string, string>): Set<string> {
  const read = new Set<string>();
  const recording = new Proxy(env, {
    get(target, name) {
      if (typeof name === 'string') read.add(name);
      return Reflect.get(target, name) as unknown;
    },
  });
  loadConfig(recording);
  return read;
}

const isVoxsmith = (s: Service) => s.image === 'voxsmith';
const namedVolume = (mount: string) => (mount.startsWith('.') || mount.startsWith('/') ? null : mount.split(':')[0]);

function checkServices(file: ComposeFile): void {
  for (const [name, service] of Object.entries(file.services)) {
    assert.ok(service.image, `${name} names its image`);
    const health = service.healthcheck?.test ?? [];
    assert.equal(health[0], 'CMD', `${name} has a health check`);
    assert.ok(health.length > 1, `${name}'s health check runs a command`);
    for (const mount of service.volumes ?? []) {
      const volume = namedVolume(mount);
      if (volume) assert.ok(volume in (file.volumes ?? {}), `${name}'s volume ${volume} is declared`);
    }
    for (const dependency of Object.keys(service.depends_on ?? {}))
      assert.ok(dependency in file.services, `${name} depends on ${dependency}`);
  }
  const nodes = Object.entries(file.services).filter(([, s]) => isVoxsmith(s));
  assert.ok(nodes.length > 0);
  for (const [name, node] of nodes) {
    assert.equal(node.build, '.', `${name} is built from the Dockerfile`);
    assert.ok(
      (node.volumes ?? []).some((m) => namedVolume(m) && m.split(':')[1] === '/data'),
      `${name} keeps its data in a named volume at /data`,
    );
    const test = (node.healthcheck?.test ?? []).join(' ');
    assert.match(test, /^CMD node -e .*http:\/\/127\.0\.0\.1:8080\/readyz/, `${name}'s health check asks /readyz with node`);
    const env = node.environment ?? {};
    assert.ok(!('PORT' in env) && !('DATA_DIR' in env), `${name} keeps the image's port and /data`);
    const read = namesRead({ ...imageEnv(), ...env });
    for (const variable of Object.keys(env)) assert.ok(read.has(variable), `${name} sets ${variable}, which src/config.ts does not read`);
  }
}

describe('compose files', () => {
  test("the image's own environment is what the config module reads, and it accepts it", () => {
    const env = imageEnv();
    assert.equal(env.DATA_DIR, '/data');
    assert.equal(env.VOICES_DIR, '/data/voices');
    const read = namesRead(env);
    // The allocator settings are glibc's, as in package.json's start script; the rest is the service's.
    for (const name of Object.keys(env).filter((n) => !n.startsWith('MALLOC_') && n !== 'NODE_ENV')) assert.ok(read.has(name), name);
    const config = loadConfig(env);
    assert.equal(config.port, 8080);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.wyomingHost, '0.0.0.0');
    assert.equal(config.wyomingPort, 10200);
  });

  test('compose.yaml: one node, its volume, HTTP and Wyoming ports published', () => {
    const file = compose('compose.yaml');
    checkServices(file);
    const node = file.services.voxsmith;
    assert.ok(node);
    assert.deepEqual(node.ports, ['8080:8080', '10200:10200']);
    assert.equal(loadConfig({ ...imageEnv(), ...node.environment }).publicUrl.port, '8080');
  });

  test('compose.scale.yaml: two or more nodes on PostgreSQL and Redis behind a WebSocket-passing load balancer', () => {
    const file = compose('compose.scale.yaml');
    checkServices(file);
    const nodes = Object.entries(file.services).filter(([, s]) => isVoxsmith(s));
    assert.ok(nodes.length >= 2, 'two or more nodes');
    const dataVolumes = new Set<string>();
    for (const [name, node] of nodes) {
      const config = loadConfig({ ...imageEnv(), ...node.environment });
      assert.ok(config.databaseUrl && config.redisUrl && config.smtpUrl, `${name} uses PostgreSQL, Redis and SMTP`);
      for (const url of [config.databaseUrl, config.redisUrl, config.smtpUrl]) {
        assert.ok(new URL(url).hostname in file.services, `${name} reaches ${new URL(url).hostname}, a service of the file`);
      }
      for (const dependency of ['postgres', 'redis'])
        assert.equal(node.depends_on?.[dependency]?.condition, 'service_healthy', `${name} waits for ${dependency}`);
      const data = (node.volumes ?? []).find((m) => m.split(':')[1] === '/data');
      assert.ok(data);
      dataVolumes.add(data.split(':')[0]);
      const voices = (node.volumes ?? []).find((m) => m.split(':')[1] === config.voicesDir);
      assert.ok(voices, `${name} mounts VOICES_DIR (${config.voicesDir})`);
      assert.equal(voices.split(':')[0], 'voices', 'one voices folder shared by every node');
      assert.ok(config.trustProxy, `${name} trusts the load balancer's X-Forwarded-For`);
    }
    assert.equal(dataVolumes.size, nodes.length, 'each node has its own /data');

    const balancer = Object.entries(file.services).find(([, s]) => s.configs?.length);
    assert.ok(balancer, 'a load balancer');
    const [balancerName, lb] = balancer;
    const conf = lb.configs?.map((c) => file.configs?.[c.source]?.content ?? '').join('\n') ?? '';
    for (const [name] of nodes) assert.match(conf, new RegExp(`server ${name}:8080`), `${balancerName} sends to ${name}`);
    // Compose interpolates $: nginx's variables are written $$ in the file.
    assert.match(conf, /proxy_set_header Upgrade \$\$http_upgrade;/);
    assert.match(conf, /proxy_set_header Connection \$\$http_connection;/);
    assert.match(conf, /proxy_http_version 1\.1;/);
    for (const [name] of nodes) assert.equal(lb.depends_on?.[name]?.condition, 'service_healthy');
    const published = (lb.ports ?? []).map((p) => p.split(':')[0]);
    for (const [, node] of nodes)
      assert.ok(published.includes(new URL(node.environment?.PUBLIC_URL ?? '').port), 'PUBLIC_URL is the load balancer');
  });
});
