// The reference the side-by-side section measures Voxsmith against: a plain HTTP server that spawns Debian's
// `flite` program for each request and answers with its WAV, the way thin wrappers around a TTS command line
// work. Run by the bench in its own process (startSpawnReference); not meant to be started by hand.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/helpers/process.ts';
import { request } from './http-client.ts';

export const FLITE_PROGRAM = '/usr/bin/flite';

export interface SpawnReference {
  base: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts the reference server in a child process; resolves once it answers. */
export async function startSpawnReference(): Promise<SpawnReference> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--serve', String(port)], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the spawn-per-request reference exited with code ${child.exitCode}`);
    const r = await request(`${base}/healthz`).catch(() => null);
    if (r?.status === 200) break;
    if (i > 600) {
      child.kill('SIGKILL');
      throw new Error('the spawn-per-request reference did not answer within 30 s');
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    base,
    pid: child.pid ?? 0,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** POST /speak {"text", "voice"?}: flite's WAV for the text, whole, once the program has exited. */
function serve(port: number): void {
  const running = new Set<ChildProcess>();
  const dir = mkdtempSync(join(tmpdir(), 'voxsmith-spawn-reference-'));
  let next = 0;
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/healthz') {
      res.end('ok');
      return;
    }
    if (req.method !== 'POST' || req.url !== '/speak') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    const body: Buffer[] = [];
    req.on('data', (d: Buffer) => body.push(d));
    req.on('end', () => {
      let text: string;
      let voice: string;
      try {
        const parsed = JSON.parse(Buffer.concat(body).toString('utf8')) as { text?: unknown; voice?: unknown };
        if (typeof parsed.text !== 'string' || parsed.text.length === 0) throw new Error('text must be a non-empty string');
        text = parsed.text;
        voice = typeof parsed.voice === 'string' ? parsed.voice : 'slt';
      } catch (err) {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(err) }));
        return;
      }
      // The text goes in as one argument (no shell); flite writes its WAV to a file (it seeks back to fill in
      // the header's sizes, which a pipe or socket on stdout does not allow).
      const file = join(dir, `${next++}.wav`);
      const child = spawn(FLITE_PROGRAM, ['-voice', voice, '-t', text, '-o', file], { stdio: 'ignore' });
      running.add(child);
      const fail = (message: string): void => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: message }));
      };
      child.once('error', (err) => {
        running.delete(child);
        fail(err.message);
      });
      child.once('close', (code) => {
        running.delete(child);
        if (code !== 0) {
          fail(`flite exited ${code}`);
          return;
        }
        readFile(file)
          .then((wav) => {
            if (!res.headersSent) res.writeHead(200, { 'content-type': 'audio/wav' }).end(wav);
          })
          .catch((err: unknown) => fail(String(err)))
          .finally(() => void rm(file, { force: true }));
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(port, '127.0.0.1');
  process.once('SIGTERM', () => {
    for (const c of running) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}

const at = process.argv.indexOf('--serve');
if (at >= 0) serve(Number(process.argv[at + 1]));
