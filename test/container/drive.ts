// The container test's checks (scripts/container-test.sh builds the image, then runs this): the image's
// configuration and contents, then the image run twice on one host folder as its /data volume, driven from
// outside as a user would. The first start installs a natural voice (VOICES_INSTALL, from a local stand-in
// catalogue); we sign in through the outbox in the volume, create a key, speak, stream over the WebSocket and
// breed a voice; SIGTERM ends it. The second start, from a new container on the same folder, still has the key,
// the bred voice and the installed model. `buildah run` shares the host's network, so the service listens on
// free ports given by env; the image's own defaults are checked in its configuration. Last, compose.scale.yaml's two
// nodes run from the same image on PostgreSQL and Redis behind a balancer.
// Prints one line per check and, last, "N passed, N failed"; exits 1 on any failure.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { parse } from 'yaml';
import { freePort } from '../helpers/process.ts';
import { dropSchema, TEST_PG_URL, TEST_REDIS_URL } from '../helpers/stores.ts';
import { startCatalogServer, type CatalogServer } from '../helpers/voice-catalog-server.ts';
import { StreamClient } from '../helpers/ws-client.ts';
import { WyomingClient } from '../helpers/wyoming-client.ts';

const image = process.argv[2];
if (!image) throw new Error('usage: drive.ts <image>');

let passed = 0;
let failed = 0;
function check(name: string, ok: boolean, detail = ''): boolean {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok' : 'not ok'} - ${name}${ok || !detail ? '' : `: ${detail}`}`);
  return ok;
}
/** Runs one step; an exception fails it (with its message) instead of ending the run. */
async function step(name: string, run: () => Promise<boolean | string>): Promise<boolean> {
  try {
    const result = await run();
    return check(name, result === true, typeof result === 'string' ? result : '');
  } catch (err) {
    return check(name, false, err instanceof Error ? err.message : String(err));
  }
}

function buildah(...args: string[]): string {
  const r = spawnSync('buildah', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`buildah ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

function runAsync(args: string[]): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('buildah', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('exit', (status) => resolve({ status, output }));
  });
}

interface ImageConfig {
  User?: string;
  Env?: string[];
  Cmd?: string[];
  Entrypoint?: string[] | null;
  WorkingDir?: string;
  ExposedPorts?: Record<string, unknown>;
  Volumes?: Record<string, unknown>;
  Healthcheck?: { Test?: string[] };
}

const inspected = JSON.parse(buildah('inspect', '--type', 'image', image)) as { Docker?: { config?: ImageConfig } };
const config: ImageConfig = inspected.Docker?.config ?? {};
const env = new Map((config.Env ?? []).map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
const command = [...(config.Entrypoint ?? []), ...(config.Cmd ?? [])];

// ---- The image's configuration: what `docker run` would do with it.
check('the image runs as a non-root user', !!config.User && !['root', '0'].includes(config.User.split(':')[0]), `USER ${config.User}`);
check('/data is the one volume', JSON.stringify(Object.keys(config.Volumes ?? {})) === '["/data"]', JSON.stringify(config.Volumes));
check(
  'it exposes 8080 (HTTP) and 10200 (Wyoming)',
  ['8080/tcp', '10200/tcp'].every((p) => p in (config.ExposedPorts ?? {})),
  JSON.stringify(config.ExposedPorts),
);
check(
  'by default it serves HTTP and Wyoming on 0.0.0.0:8080 and :10200, its data and voices in /data',
  env.get('HOST') === '0.0.0.0' &&
    env.get('PORT') === '8080' &&
    env.get('WYOMING_HOST') === '0.0.0.0' &&
    env.get('WYOMING_PORT') === '10200' &&
    env.get('DATA_DIR') === '/data' &&
    env.get('VOICES_DIR') === '/data/voices',
  (config.Env ?? []).join(' '),
);
const health = config.Healthcheck?.Test ?? [];
check(
  'its health check asks /readyz with node (the slim base has no curl)',
  health[0] === 'CMD' && health[1] === 'node' && health.join(' ').includes('/readyz'),
  JSON.stringify(health),
);
check('its command runs node itself as PID 1 (no npm or shell in between)', command[0] === 'node', JSON.stringify(command));

// ---- The image's files, read through a mount of a working container.
let imageUid = -1;
const inspectCtr = buildah('from', '--pull=never', image);
try {
  const root = buildah('mount', inspectCtr);
  const compilers = ['gcc', 'g++', 'cc', 'c++', 'make'].filter((tool) =>
    ['/usr/bin', '/usr/local/bin', '/bin', '/usr/sbin'].some((dir) => existsSync(join(root, dir, tool))),
  );
  check('no compiler in the image (gcc, g++, cc, make)', compilers.length === 0, compilers.join(', '));
  const modules = join(root, 'app/node_modules');
  // Every package the lockfile marks as needed only by dev dependencies (typescript, eslint, vite, ...).
  const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  const devOnly = Object.entries(lock.packages)
    .filter(([path, p]) => p.dev && path.startsWith('node_modules/'))
    .map(([path]) => path.slice('node_modules/'.length));
  const present = devOnly.filter((d) => existsSync(join(modules, d)));
  check(
    `no dev dependency under node_modules (${devOnly.length} dev-only packages looked for)`,
    devOnly.includes('typescript') && devOnly.includes('eslint') && existsSync(join(modules, 'fastify')) && present.length === 0,
    present.slice(0, 20).join(', '),
  );
  const extras = ['src', 'test', 'bench', 'docs', '.git', 'data'].filter((d) => existsSync(join(root, 'app', d)));
  check('no sources, tests or bench in the image', extras.length === 0, extras.join(', '));
  check(
    'the build is in it: the service, the dashboard, the SDK package',
    ['dist/bundle/main.js', 'web/dist/index.html', 'client/pack/voxsmith-client.tgz'].every((f) => existsSync(join(root, 'app', f))),
  );
  const passwd = readFileSync(join(root, 'etc/passwd'), 'utf8');
  const user = config.User?.split(':')[0] ?? '';
  imageUid = Number(
    /^\d+$/.test(user)
      ? user
      : passwd
          .split('\n')
          .find((l) => l.startsWith(`${user}:`))
          ?.split(':')[2],
  );
} finally {
  buildah('rm', inspectCtr);
}

// ---- Running it.
interface Running {
  ctr: string;
  child: ChildProcess;
  base: string;
  port: number;
  wyomingPort: number;
  output: () => string;
  exited: Promise<number | null>;
}

const volume = mkdtempSync('/var/tmp/voxsmith-container-data-');
// A bind-mounted folder belongs to the image's user, as the README asks of a host folder used as /data.
chownSync(volume, imageUid, imageUid);
const containers: string[] = [];
let catalog: CatalogServer | undefined;

async function start(extraEnv: Record<string, string>, mounts: Record<string, string> = { [volume]: '/data' }): Promise<Running> {
  const ctr = buildah('from', '--pull=never', image);
  containers.push(ctr);
  // `buildah run` mounts storage of its own on an image's VOLUME, over a -v on the same path (Docker's -v replaces
  // it): this container forgets the declaration, so /data is the host folder as with `docker run -v`.
  buildah('config', '--volume', '/data-', ctr);
  const port = await freePort();
  const wyomingPort = await freePort();
  const vars = { PORT: String(port), WYOMING_PORT: String(wyomingPort), WORKERS: '1', ...extraEnv };
  const child = spawn(
    'buildah',
    [
      'run',
      '--isolation',
      'chroot',
      ...Object.entries(mounts).flatMap(([host, inside]) => ['-v', `${host}:${inside}`]),
      ...Object.entries(vars).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
      ctr,
      '--',
      ...command,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { ctr, child, base: `http://127.0.0.1:${port}`, port, wyomingPort, output: () => out, exited };
}

async function ready(r: Running, timeoutMs = 240_000): Promise<boolean | string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (r.child.exitCode !== null) return `the container exited (${r.child.exitCode}): ${r.output().slice(-2000)}`;
    try {
      if ((await fetch(`${r.base}/readyz`)).status === 200) return true;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) return `not ready within ${timeoutMs / 1000} s: ${r.output().slice(-2000)}`;
    await new Promise((res) => setTimeout(res, 250));
  }
}

/** The service's node process: the descendant of `buildah run` that listens on the container's port. */
function servicePid(r: Running): number {
  const ss = spawnSync('ss', ['-Hltnp', `sport = :${r.port}`], { encoding: 'utf8' }).stdout;
  const pid = Number(/pid=(\d+)/.exec(ss)?.[1]);
  if (!pid) throw new Error(`nothing listens on ${r.port}: ${ss}`);
  return pid;
}

function listensOnAllAddresses(port: number): boolean {
  const ss = spawnSync('ss', ['-Hltn', `sport = :${port}`], { encoding: 'utf8' }).stdout;
  return /(^|\s)(0\.0\.0\.0|\*|\[::\]):\d+\s/m.test(ss);
}

/** Sends SIGTERM to the service as `docker stop` does, and waits for the container to end. */
async function stop(r: Running): Promise<{ code: number | null; seconds: number }> {
  const sent = Date.now();
  process.kill(servicePid(r), 'SIGTERM');
  const code = await Promise.race([r.exited, new Promise<'hung'>((res) => setTimeout(() => res('hung'), 30_000))]);
  if (code === 'hung') {
    r.child.kill('SIGKILL');
    return { code: null, seconds: Infinity };
  }
  return { code, seconds: (Date.now() - sent) / 1000 };
}

/** Mono 16-bit PCM of a WAV body: sample count and RMS (full scale 1). */
function wavStats(wav: Buffer): { samples: number; rms: number; rate: number } {
  if (wav.toString('ascii', 0, 4) !== 'RIFF' || wav.toString('ascii', 8, 12) !== 'WAVE') throw new Error('not a WAV file');
  let at = 12;
  let rate = 0;
  let bits = 0;
  while (at + 8 <= wav.length) {
    const id = wav.toString('ascii', at, at + 4);
    const size = wav.readUInt32LE(at + 4);
    if (id === 'fmt ') {
      rate = wav.readUInt32LE(at + 12);
      bits = wav.readUInt16LE(at + 22);
    }
    if (id === 'data') {
      if (bits !== 16) throw new Error(`${bits}-bit WAV`);
      const end = Math.min(wav.length, at + 8 + (size === 0xffffffff ? wav.length : size));
      let sum = 0;
      let n = 0;
      for (let i = at + 8; i + 1 < end; i += 2, n++) sum += (wav.readInt16LE(i) / 32768) ** 2;
      return { samples: n, rms: Math.sqrt(sum / Math.max(1, n)), rate };
    }
    at += 8 + size + (size % 2);
  }
  throw new Error('no data chunk');
}

/** The sample count ffmpeg decodes from the WAV (an independent decoder), or null where ffmpeg is not installed. */
function ffmpegSamples(wav: Buffer): number | null {
  const r = spawnSync('ffmpeg', ['-v', 'error', '-i', 'pipe:0', '-f', 's16le', '-ac', '1', 'pipe:1'], {
    input: wav,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) return null;
  if (r.status !== 0) throw new Error(`ffmpeg cannot decode it: ${r.stderr.toString()}`);
  return r.stdout.length / 2;
}

async function speak(base: string, key: string, voiceId: string, text: string): Promise<Buffer> {
  const res = await fetch(`${base}/v1/speak`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text, voice_id: voiceId, format: 'wav' }),
  });
  if (res.status !== 200) throw new Error(`speak ${voiceId}: ${res.status} ${await res.text()}`);
  return Buffer.from(await res.arrayBuffer());
}

function speechCheck(wav: Buffer): boolean | string {
  const { samples, rms, rate } = wavStats(wav);
  const decoded = ffmpegSamples(wav);
  if (!(samples / rate > 0.3) || !(rms > 0.01)) return `${samples} samples at ${rate} Hz, RMS ${rms.toFixed(4)}`;
  if (decoded !== null && decoded !== samples) return `ffmpeg decodes ${decoded} samples, the data chunk holds ${samples}`;
  return true;
}

const post = (base: string, path: string, json: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(json) });

/**
 * The magic-link sign-in as a user does it (the mail read from an outbox in a data volume: whichever node sent
 * it), then a key made with the session.
 */
async function signInWithKey(base: string, volumes: string[], email: string): Promise<{ key: string; id: string; link: string } | string> {
  const login = await post(base, '/api/auth/login', { email });
  if (login.status !== 200) return `login: ${login.status}`;
  const mails = volumes.flatMap((v) => {
    const outbox = join(v, 'outbox');
    return existsSync(outbox) ? readdirSync(outbox).map((f) => join(outbox, f)) : [];
  });
  const text = mails.map((f) => readFileSync(f, 'utf8')).find((m) => m.includes(email));
  if (!text) return `no mail to ${email} in /data/outbox`;
  const link = /https?:\/\/\S+\/verify\?token=([A-Za-z0-9_-]+)/.exec(text);
  if (!link) return 'no link in the mail';
  const verify = await post(base, '/api/auth/verify', { token: link[1] });
  if (verify.status !== 200) return `verify: ${verify.status}`;
  const cookie = verify.headers.getSetCookie()[0].split(';')[0];
  const created = await post(base, '/api/auth/api-keys', { name: 'container' }, { cookie, origin: base });
  if (created.status !== 201) return `key: ${created.status} ${await created.text()}`;
  const { key, id } = (await created.json()) as { key: string; id: string };
  return { key, id, link: link[0] };
}

const SCALE_SCHEMA = `container_scale_${process.pid}`;
const scaleDirs: string[] = [];

/** A round-robin TCP balancer over `ports`: each new connection goes to the next node, bytes both ways. */
async function roundRobin(port: number, ports: number[]): Promise<{ close: () => void }> {
  let next = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(ports[next++ % ports.length], '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    close: () => {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}

async function scaleOut(): Promise<void> {
  const file = parse(readFileSync(new URL('../../compose.scale.yaml', import.meta.url), 'utf8'), { merge: true }) as {
    services: Record<string, { environment?: Record<string, string>; volumes?: string[] }>;
  };
  const nodes = Object.entries(file.services).filter(([, s]) => s.environment?.DATABASE_URL !== undefined);
  const composeEnv = nodes[0]?.[1].environment ?? {};
  if (
    !check('compose.scale.yaml has two or more Voxsmith nodes on DATABASE_URL and REDIS_URL', nodes.length >= 2 && !!composeEnv.REDIS_URL)
  )
    return;
  const voices = mkdtempSync('/var/tmp/voxsmith-container-voices-');
  scaleDirs.push(voices);
  chownSync(voices, imageUid, imageUid);
  const balancerPort = await freePort();
  const env: Record<string, string> = {
    ...composeEnv,
    DATABASE_URL: `${TEST_PG_URL}?schema=${SCALE_SCHEMA}`,
    REDIS_URL: `${TEST_REDIS_URL}/0?prefix=${SCALE_SCHEMA}:`,
    PUBLIC_URL: `http://127.0.0.1:${balancerPort}`,
    VOICES_CATALOG_URL: catalog?.catalogUrl ?? '',
    WYOMING_PORT: 'off',
  };
  delete env.SMTP_URL;
  const voicesMount = composeEnv.VOICES_DIR ?? '/voices';
  const running: Running[] = [];
  const dirs: string[] = [];
  const served = catalog?.requests.length ?? 0;
  for (let i = 0; i < 2; i++) {
    const data = mkdtempSync('/var/tmp/voxsmith-container-node-');
    scaleDirs.push(data);
    dirs.push(data);
    chownSync(data, imageUid, imageUid);
    running.push(await start(env, { [data]: '/data', [voices]: voicesMount }));
  }
  const [one, two] = running;
  const balancer = await roundRobin(
    balancerPort,
    running.map((r) => r.port),
  );
  const base = `http://127.0.0.1:${balancerPort}`;
  try {
    const up = await step('scale-out: two nodes of the image on PostgreSQL + Redis answer /readyz', async () => {
      for (const r of running) {
        const ok = await ready(r);
        if (ok !== true) return ok;
      }
      return true;
    });
    if (!up) return;
    let scaleKey = '';
    let scaleKeyId = '';
    await step('scale-out: sign in and make a key through the balancer', async () => {
      const signedIn = await signInWithKey(base, dirs, 'scale@example.com');
      if (typeof signedIn === 'string') return signedIn;
      scaleKey = signedIn.key;
      scaleKeyId = signedIn.id;
      return true;
    });
    await step('scale-out: the key speaks on each node', async () => {
      for (const r of running) {
        const ok = speechCheck(await speak(r.base, scaleKey, 'flite-slt', 'One database, two nodes.'));
        if (ok !== true) return `${r.base}: ${ok}`;
      }
      return true;
    });
    await step('scale-out: VOICES_INSTALL on both nodes downloads the natural voice once, and each node serves it', async () => {
      const deadline = Date.now() + 180_000;
      for (const r of running) {
        for (;;) {
          const listed = (await (await fetch(`${r.base}/api/voices?engine=piper`)).json()) as { voices: { id: string }[] };
          if (listed.voices.some((v) => v.id === NATURAL_ID)) break;
          if (Date.now() > deadline) return `${r.base} does not list it: ${r.output().slice(-1500)}`;
          await new Promise((res) => setTimeout(res, 500));
        }
      }
      const downloads = catalog?.requests.slice(served).filter((q) => q.path.endsWith(`${NATURAL}.onnx`)) ?? [];
      if (downloads.length !== 1) return `${downloads.length} downloads of the model`;
      return speechCheck(await speak(two.base, scaleKey, NATURAL_ID, 'Downloaded once, spoken everywhere.'));
    });
    await step('scale-out: a WebSocket stream through the balancer plays', async () => {
      const ws = await StreamClient.open(`${base.replace('http', 'ws')}/v1/ws/stream?token=${scaleKey}`, { timeoutMs: 60_000 });
      try {
        ws.send({ type: 'synthesize', text: 'Through the balancer.', voice_id: 'flite-slt', id: 'b1' });
        const done = await ws.until((m) => m.type === 'done' && m.id === 'b1');
        const samples = ws.samples((m) => m.id === 'b1');
        return (samples.length > 0 && samples.length === done.samples) || `${samples.length} samples (done says ${done.samples})`;
      } finally {
        ws.close();
      }
    });
    await step('scale-out: a key revoked on one node is refused by the other', async () => {
      const bearer = { authorization: `Bearer ${scaleKey}` };
      const revoke = await fetch(`${one.base}/api/auth/api-keys?key_id=${scaleKeyId}`, { method: 'DELETE', headers: bearer });
      if (revoke.status !== 200) return `revoke: ${revoke.status} ${await revoke.text()}`;
      const deadline = Date.now() + 5_000;
      for (;;) {
        const res = await fetch(`${two.base}/api/auth/api-keys`, { headers: bearer });
        if (res.status === 401) return true;
        if (Date.now() > deadline) return `the other node still answers ${res.status}`;
        await new Promise((r) => setTimeout(r, 100));
      }
    });
  } finally {
    balancer.close();
    for (const r of running) {
      const { code } = await stop(r).catch(() => ({ code: null }));
      if (code !== 0) console.log(`  scale-out node ${r.base} exit ${code}: ${r.output().slice(-800)}`);
    }
  }
}

const NATURAL = 'en_US-lessac-medium';
const NATURAL_ID = 'piper-en-us-lessac-medium';
const ADDED = 'en_GB-alba-medium';
const ADDED_ID = 'piper-en-gb-alba-medium';
let key = '';
let bredId = '';
let modelFiles: string[] = [];

try {
  catalog = await startCatalogServer({ piper: [{ key: NATURAL }, { key: ADDED }] });

  // ---- First start: a fresh volume, a natural voice to install.
  const first = await start({ VOICES_INSTALL: NATURAL, VOICES_CATALOG_URL: catalog.catalogUrl });
  const up = await step('first start: /readyz answers 200', () => ready(first));
  if (up) {
    await step('the service process runs as the image user, not root', async () => {
      const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${servicePid(first)}/status`, 'utf8'))?.[1]);
      return (uid === imageUid && uid !== 0) || `uid ${uid}`;
    });
    await step('HTTP and Wyoming listen on all addresses in the container', async () => {
      return (
        (listensOnAllAddresses(first.port) && listensOnAllAddresses(first.wyomingPort)) ||
        spawnSync('ss', ['-Hltn'], { encoding: 'utf8' }).stdout
      );
    });
    await step("the image's health check command passes while it serves", async () => {
      const r = spawnSync('buildah', ['run', '--isolation', 'chroot', '-e', `PORT=${first.port}`, first.ctr, '--', ...health.slice(1)], {
        encoding: 'utf8',
      });
      return r.status === 0 || `exit ${r.status}: ${r.stderr}`;
    });
    await step('sign in through the magic link in the outbox in the volume (and in the log), and create a key', async () => {
      const signedIn = await signInWithKey(first.base, [volume], 'container@example.com');
      if (typeof signedIn === 'string') return signedIn;
      // The log reaches us through buildah's pipe: allow it a moment.
      for (let i = 0; i < 50 && !first.output().includes(signedIn.link); i++) await new Promise((res) => setTimeout(res, 200));
      if (!first.output().includes(signedIn.link)) return 'the link is not in the log (docker logs)';
      key = signedIn.key;
      return true;
    });
    await step('/v1/speak answers speech (WAV decoded: length and level)', async () =>
      speechCheck(await speak(first.base, key, 'espeak-en-us-female-1', 'Hello from inside the container.')),
    );
    await step('a WebSocket stream plays', async () => {
      const ws = await StreamClient.open(`${first.base.replace('http', 'ws')}/v1/ws/stream?token=${key}`, { timeoutMs: 60_000 });
      try {
        ws.send({ type: 'synthesize', text: 'Streaming from the container.', voice_id: 'flite-slt', id: 's1' });
        const done = await ws.until((m) => m.type === 'done' && m.id === 's1');
        const samples = ws.samples((m) => m.id === 's1');
        let sum = 0;
        for (const v of samples) sum += v * v;
        const rms = Math.sqrt(sum / Math.max(1, samples.length));
        return (
          (samples.length > 0 && samples.length === done.samples && rms > 0.01) ||
          `${samples.length} samples (done says ${done.samples}), RMS ${rms}`
        );
      } finally {
        ws.close();
      }
    });
    await step('Wyoming answers describe with its voices', async () => {
      const client = new WyomingClient(first.wyomingPort);
      try {
        await client.connected();
        client.send('describe');
        const info = await client.next(30_000);
        return (info.type === 'info' && JSON.stringify(info.data ?? {}).includes('espeak')) || JSON.stringify(info).slice(0, 300);
      } finally {
        client.socket.destroy();
      }
    });
    await step('VOICES_INSTALL downloads the natural voice into the volume at the first start, and it speaks', async () => {
      const deadline = Date.now() + 120_000;
      for (;;) {
        const listed = (await (await fetch(`${first.base}/api/voices?engine=piper`)).json()) as { voices: { id: string }[] };
        if (listed.voices.some((v) => v.id === NATURAL_ID)) break;
        if (Date.now() > deadline) return `not listed: ${first.output().slice(-1500)}`;
        await new Promise((r) => setTimeout(r, 500));
      }
      modelFiles = readdirSync(join(volume, 'voices'), { recursive: true })
        .map(String)
        .filter((f) => f.endsWith('.onnx'));
      if (modelFiles.length === 0) return 'no .onnx file under /data/voices';
      return speechCheck(await speak(first.base, key, NATURAL_ID, 'A natural voice.'));
    });
    await step('`voxsmith voices add` run in the container (docker exec) adds a voice the service then serves', async () => {
      const env = ['-e', `VOICES_CATALOG_URL=${catalog?.catalogUrl}`];
      // Not spawnSync: the stand-in catalogue answers from this process's event loop.
      const r = await runAsync([
        'run',
        '--isolation',
        'chroot',
        '-v',
        `${volume}:/data`,
        ...env,
        first.ctr,
        '--',
        'voxsmith',
        'voices',
        'add',
        ADDED,
      ]);
      if (r.status !== 0) return `exit ${r.status}: ${r.output}`;
      const deadline = Date.now() + 60_000;
      for (;;) {
        const listed = (await (await fetch(`${first.base}/api/voices?engine=piper`)).json()) as { voices: { id: string }[] };
        if (listed.voices.some((v) => v.id === ADDED_ID)) return true;
        if (Date.now() > deadline) return `not served: ${JSON.stringify(listed.voices.map((v) => v.id))}`;
        await new Promise((res) => setTimeout(res, 500));
      }
    });
    await step('a voice is bred', async () => {
      const res = await fetch(`${first.base}/v1/forge/breed`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ parent_a: 'espeak-en-us-male-2', parent_b: 'espeak-en-us-female-1', name: 'Contained', seed: 3 }),
      });
      if (res.status !== 201) return `${res.status} ${await res.text()}`;
      bredId = ((await res.json()) as { voice: { id: string } }).voice.id;
      return true;
    });
  }
  await step('SIGTERM (docker stop) ends it within 10 s, the ordered shutdown logged, exit 0', async () => {
    const { code, seconds } = await stop(first);
    console.log(`  SIGTERM to exit: ${seconds.toFixed(2)} s`);
    const logged = first.output().includes('shutting down');
    return (code === 0 && seconds <= 10 && logged) || `exit ${code} after ${seconds} s, shutdown logged: ${logged}`;
  });

  // ---- Second start: a new container on the same volume.
  const served = catalog.requests.length;
  const second = await start({ VOICES_INSTALL: NATURAL, VOICES_CATALOG_URL: catalog.catalogUrl });
  if (await step('second start on the same volume: /readyz answers 200', () => ready(second))) {
    await step('the key from the first run still works, and the bred voice is still there and speaks', async () => {
      const voice = await fetch(`${second.base}/api/voices/${bredId}`, { headers: { authorization: `Bearer ${key}` } });
      if (voice.status !== 200) return `GET /api/voices/${bredId}: ${voice.status} ${await voice.text()}`;
      return speechCheck(await speak(second.base, key, bredId, 'Still here after a restart.'));
    });
    await step('the installed voice is kept in the volume: served again, not downloaded again', async () => {
      const listed = (await (await fetch(`${second.base}/api/voices?engine=piper`)).json()) as { voices: { id: string }[] };
      const again = catalog?.requests.slice(served).filter((r) => r.path.endsWith('.onnx')) ?? [];
      return (
        (listed.voices.some((v) => v.id === NATURAL_ID) && again.length === 0) ||
        `listed: ${JSON.stringify(listed.voices)}, downloads: ${again.length}`
      );
    });
  }
  await step('SIGTERM ends the second run too, within 10 s', async () => {
    const { code, seconds } = await stop(second);
    console.log(`  SIGTERM to exit: ${seconds.toFixed(2)} s`);
    return (code === 0 && seconds <= 10) || `exit ${code} after ${seconds} s: ${second.output().slice(-1000)}`;
  });
  await step('the health check command fails once the service is gone', async () => {
    const r = spawnSync('buildah', ['run', '--isolation', 'chroot', '-e', `PORT=${second.port}`, second.ctr, '--', ...health.slice(1)], {
      encoding: 'utf8',
    });
    return r.status === 1 || `exit ${r.status}`;
  });
  // ---- Scale-out: compose.scale.yaml's nodes, from this image, on PostgreSQL and Redis behind a balancer.
  // Compose cannot run here, so its voxsmith service's environment is read from the file and given to two
  // containers of the image, with the addresses its service names stand for replaced by this machine's
  // PostgreSQL and Redis (a schema and a key prefix of their own) and the catalogue by the stand-in; mail goes to
  // each node's outbox instead of Mailpit. The balancer is a round-robin TCP forwarder (it passes upgrades).
  await scaleOut();
} finally {
  await catalog?.close();
  for (const ctr of containers) spawnSync('buildah', ['rm', ctr]);
  for (const dir of [volume, ...scaleDirs]) rmSync(dir, { recursive: true, force: true });
  await dropSchema(SCALE_SCHEMA).catch(() => undefined);
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
