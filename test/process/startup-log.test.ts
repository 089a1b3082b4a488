// What a person sees when they start the service: a banner naming the address, the data folder and where sign-in
// links go; readable lines on a terminal, JSON lines for a log collector; the sign-in link alone on its own line.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startProcess } from '../helpers/process.ts';
import { SmtpSink } from '../helpers/smtp-sink.ts';
import { startCatalogServer } from '../helpers/voice-catalog-server.ts';

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'voxsmith-startup-'));
  dirs.push(dir);
  return dir;
}
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function post(base: string, path: string, json: unknown): Promise<Response> {
  return fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) });
}

async function waitFor(output: () => string, pattern: RegExp, what: string): Promise<RegExpExecArray> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const match = pattern.exec(output());
    if (match) return match;
    if (Date.now() > deadline) throw new Error(`no ${what} in the output:\n${output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The link in the newest mail of the outbox, as the user would find it there. */
function outboxLink(dir: string): string {
  const outbox = join(dir, 'outbox');
  const file = readdirSync(outbox).sort().at(-1);
  assert.ok(file, 'a mail in the outbox');
  const link = /https?:\/\/\S+\/verify\?token=[A-Za-z0-9_-]+/.exec(readFileSync(join(outbox, file), 'utf8'))?.[0];
  assert.ok(link, 'the mail holds a link');
  return link;
}

test('on a terminal: a banner with the address, data folder and outbox, readable lines, the sign-in link on its own line', async () => {
  const dir = dataDir();
  const port = await freePort();
  const wyomingPort = await freePort();
  // `script` gives the service a real pseudo-terminal, so this is the auto-detection a developer gets from npm start.
  const child = spawn('script', ['-qfec', `${process.execPath} --import tsx src/main.ts`, '/dev/null'], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      WYOMING_PORT: String(wyomingPort),
      DATA_DIR: dir,
      VOICES_DIR: join(dir, 'voices'),
      SMTP_URL: '',
      LOG_FORMAT: '',
      WORKERS: '1',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await waitFor(() => out, /Voxsmith is running\.[\s\S]*Stop\s+Ctrl\+C/, 'banner');
    // A terminal turns \n into \r\n; colours are for eyes, the test reads the text.
    // eslint-disable-next-line no-control-regex
    const text = () => out.replace(/\r/g, '').replace(/\x1b\[[0-9;]*m/g, '');
    assert.match(
      text(),
      new RegExp(`^  Open +http://localhost:${port}\n {2} +http://127\\.0\\.0\\.1:${port}$`, 'm'),
      'every address it answers on',
    );
    assert.match(
      text(),
      new RegExp(
        `^  Wyoming +127\\.0\\.0\\.1:${wyomingPort} for Home Assistant \\(connect it to a key on the dashboard’s Home Assistant page\\)$`,
        'm',
      ),
    );
    assert.match(text(), new RegExp(`^  API docs +http://localhost:${port}/docs$`, 'm'));
    assert.match(text(), new RegExp(`^  Data +${dir} \\(SQLite\\)$`, 'm'));
    assert.match(text(), new RegExp(`^  Sign-in +no SMTP_URL: sign-in links are printed below and saved to ${join(dir, 'outbox')}/$`, 'm'));
    assert.match(
      text(),
      /^ {2}Voices +no natural voice yet: add one with `npx voxsmith voices add en_US-lessac-medium` or on the dashboard's Natural voices page$/m,
    );

    const base = `http://127.0.0.1:${port}`;
    assert.equal((await post(base, '/api/auth/login', { email: 'terminal@example.com' })).status, 200);
    const printed = (await waitFor(text, /^ {4}(http:\/\/\S+\/verify\?token=[A-Za-z0-9_-]+)$/m, 'sign-in link line'))[1];
    assert.equal(printed, outboxLink(dir), 'the printed link is the mailed one');
    const token = new URL(printed).searchParams.get('token');
    assert.equal((await post(base, '/api/auth/verify', { token })).status, 200, 'the printed link signs in');

    await waitFor(text, /← 200 in \d+ ms \[[0-9a-f]{8}\]$/m, 'request completion line');
    assert.match(text(), /→ POST \/api\/auth\/verify \[[0-9a-f]{8}\]$/m, 'requests as method and path with a short id');
    assert.doesNotMatch(text(), /\{"level":/, 'no JSON lines on a terminal');
    assert.doesNotMatch(text(), /\\n/, 'no escaped newlines');
  } finally {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
});

test('piped to a collector: JSON lines only, the banner as a log line, the sign-in link in a field of its own', async () => {
  const dir = dataDir();
  const service = await startProcess({
    DATA_DIR: dir,
    SMTP_URL: '',
    LOG_FORMAT: '',
    PUBLIC_URL: 'http://voxsmith.test:8080',
    WORKERS: '1',
  });
  try {
    const lines = () =>
      service
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    await waitFor(service.output, /Voxsmith is running/, 'banner line');
    const banner = lines().find((l) => typeof l.msg === 'string' && l.msg.startsWith('Voxsmith is running'));
    assert.ok(banner);
    assert.equal(banner.msg, 'Voxsmith is running: open http://voxsmith.test:8080');
    assert.equal(banner.dataDir, dir);
    assert.equal(banner.outbox, join(dir, 'outbox'));
    assert.equal(banner.mail, 'outbox');

    assert.equal((await post(service.base, '/api/auth/login', { email: 'piped@example.com' })).status, 200);
    await waitFor(service.output, /"link":/, 'sign-in line');
    const signIn = lines().find((l) => l.link !== undefined);
    assert.ok(signIn);
    assert.equal(signIn.link, outboxLink(dir));
    assert.doesNotMatch(String(signIn.msg), /\n/, 'the message is one line');
    for (const line of service
      .output()
      .split('\n')
      .filter((l) => l.trim() !== '')) {
      // npm's or Node's own warnings aside, every line of the service is JSON.
      if (!/^(\(node:|npm warn)/.test(line)) assert.doesNotThrow(() => JSON.parse(line), line);
    }
  } finally {
    await service.stop();
  }
});

test('with SMTP, even in the terminal format, the banner says links are mailed and no link or token reaches the log', async () => {
  const mail = new SmtpSink();
  const service = await startProcess({ DATA_DIR: dataDir(), SMTP_URL: await mail.start(), LOG_FORMAT: 'pretty', WORKERS: '1' });
  try {
    await waitFor(service.output, /Stop\s+Ctrl\+C/, 'banner');
    assert.match(service.output(), /^ {2}Sign-in +sign-in links are mailed over SMTP \(SMTP_URL\)$/m);
    assert.doesNotMatch(service.output(), /smtp:\/\/127/, 'the SMTP URL (it may hold a password) is not shown');
    assert.equal((await post(service.base, '/api/auth/login', { email: 'mailed@example.com' })).status, 200);
    const token = await mail.tokenFor('mailed@example.com');
    await waitFor(service.output, /← 200/, 'request line');
    assert.ok(!service.output().includes(token), 'the token is not logged');
    assert.doesNotMatch(service.output(), /verify\?token=/);
  } finally {
    await service.stop();
    await mail.stop();
  }
});

test('while VOICES_INSTALL downloads the first natural voice, the banner says it is being installed, not that there is none', async () => {
  const model = '/piper/en/en_US/lessac/medium/en_US-lessac-medium.onnx';
  // A slow download: the voice is still on its way when the banner is printed.
  const catalog = await startCatalogServer({
    piper: [{ key: 'en_US-lessac-medium', paddingBytes: 1_500_000 }],
    throttleMs: { [model]: 60 },
  });
  const dir = dataDir();
  const service = await startProcess({
    DATA_DIR: dir,
    VOICES_DIR: join(dir, 'voices'),
    VOICES_CATALOG_URL: catalog.catalogUrl,
    KOKORO_FILES_URL: catalog.kokoroUrl,
    VOICES_INSTALL: 'en_US-lessac-medium',
    LOG_FORMAT: 'pretty',
    WORKERS: '1',
  });
  try {
    await waitFor(service.output, /Stop\s+Ctrl\+C/, 'banner');
    assert.match(
      service.output(),
      /^ {2}Voices +installing en_US-lessac-medium \(VOICES_INSTALL\): it speaks as soon as it has arrived; progress below and on the dashboard's Natural voices page$/m,
    );
    assert.doesNotMatch(service.output(), /no natural voice yet/);
  } finally {
    await service.stop();
    await catalog.close();
  }
});

test('a port in use at start: one message that names PORT, and exit 1', async () => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const port = (holder.address() as { port: number }).port;
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), WYOMING_PORT: 'off', DATA_DIR: dataDir(), SMTP_URL: '', WORKERS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 1);
    assert.match(
      err,
      new RegExp(`^voxsmith: port ${port} on 127\\.0\\.0\\.1 is in use by another process \\(PORT\\): .*PORT=${port + 1}`, 'm'),
    );
    assert.doesNotMatch(err, /at .*\.ts:\d+/, 'no stack trace');
  } finally {
    await new Promise<void>((resolve) => holder.close(() => resolve()));
  }
});
