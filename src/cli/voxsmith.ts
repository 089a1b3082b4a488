// `npx voxsmith voices available|add|list|remove`: natural voices from the catalogue into VOICES_DIR (and out
// again) from a terminal, with the same settings as the service (VOICES_DIR, VOICES_CATALOG_URL,
// KOKORO_FILES_URL). A running service picks the change up within seconds; no restart.
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '../config.ts';
import { CatalogError, filterCatalog, loadCatalog, type CatalogVoice } from '../voices/install/catalog.ts';
import { VerifyError } from '../voices/install/download.ts';
import { installVoice, isInstalled, listInstalled, NotInstalledError, removeVoice } from '../voices/install/installer.ts';
import { SourceError } from '../voices/install/source.ts';
import { scanVoicesDir } from '../voices/neural-catalog.ts';
import { formatBytes, progressPrinter } from './progress.ts';

const USAGE = `Usage: voxsmith voices <command>

  voices available [--lang en] [--quality medium] [--engine piper|kokoro] [--json]
                                 the voices the catalogue offers
  voices add NAME...             download, verify and install (e.g. en_US-lessac-medium kokoro-v1.0-int8)
  voices list [--json]           the voices installed in VOICES_DIR
  voices remove NAME...          uninstall

Options: --dir PATH (instead of VOICES_DIR, default ./voices)
Settings: VOICES_DIR, VOICES_CATALOG_URL (Piper's voices.json or a mirror), KOKORO_FILES_URL.
`;

export interface CliIo {
  out: { write(s: string): void; isTTY?: boolean; columns?: number };
  err: { write(s: string): void };
  env: Record<string, string | undefined>;
  signal?: AbortSignal;
}

class UsageError extends Error {}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ')).join('\n') + '\n';
}

async function available(
  values: Record<string, unknown>,
  io: CliIo,
  sources: Parameters<typeof loadCatalog>[0],
  voicesDir: string,
): Promise<void> {
  const all = await loadCatalog(sources, io.signal);
  const found = filterCatalog(all, {
    language: typeof values.lang === 'string' ? values.lang : undefined,
    quality: typeof values.quality === 'string' ? values.quality : undefined,
    engine: typeof values.engine === 'string' ? values.engine : undefined,
  });
  const installed = new Set((await listInstalled(voicesDir)).map((v) => v.name));
  if (values.json) {
    io.out.write(
      `${JSON.stringify(
        found.map((v) => ({ ...v, installed: installed.has(v.name) })),
        null,
        2,
      )}\n`,
    );
    return;
  }
  if (found.length === 0) {
    io.out.write('No voice in the catalogue matches.\n');
    return;
  }
  const rows = [
    ['NAME', 'LANGUAGE', 'QUALITY', 'SIZE', ''],
    ...found.map((v) => [v.name, v.languageName, v.quality, formatBytes(v.size), installed.has(v.name) ? 'installed' : '']),
  ];
  io.out.write(table(rows));
  io.out.write(`\n${found.length} voice${found.length === 1 ? '' : 's'}. Install with: npx voxsmith voices add ${found[0].name}\n`);
}

async function voiceIdsOf(voicesDir: string, files: string[]): Promise<string[]> {
  const catalog = await scanVoicesDir(voicesDir);
  const onnx = files.find((f) => f.endsWith('.onnx'));
  const stem = onnx?.slice(0, -'.onnx'.length);
  return catalog.voices.filter((v) => v.spec.base === stem || v.spec.base.startsWith(`${stem}/`)).map((v) => v.id);
}

async function add(names: string[], io: CliIo, sources: Parameters<typeof loadCatalog>[0], voicesDir: string): Promise<number> {
  if (names.length === 0) throw new UsageError('voices add needs at least one voice name (see: npx voxsmith voices available)');
  const all = await loadCatalog(sources, io.signal);
  const wanted: CatalogVoice[] = [];
  for (const name of names) {
    const voice = all.find((v) => v.name === name) ?? all.find((v) => v.name.toLowerCase() === name.toLowerCase());
    if (!voice) {
      const close = all
        .filter((v) => v.name.toLowerCase().includes(name.toLowerCase().split('-')[0]))
        .slice(0, 5)
        .map((v) => v.name);
      throw new UsageError(`no voice named ${name} in the catalogue${close.length > 0 ? ` (did you mean ${close.join(', ')}?)` : ''}`);
    }
    wanted.push(voice);
  }
  let failed = 0;
  for (const voice of wanted) {
    if (await isInstalled(voicesDir, voice)) {
      io.out.write(`${voice.name} is already installed.\n`);
      continue;
    }
    io.out.write(`Installing ${voice.name} (${formatBytes(voice.size)}) into ${voicesDir}\n`);
    const printer = progressPrinter(io.out);
    try {
      const result = await installVoice(voice, { voicesDir, signal: io.signal, onProgress: (p) => printer.update(p) });
      printer.done();
      const ids = await voiceIdsOf(voicesDir, result.files);
      const verified = voice.files.every((f) => f.sha256) ? 'SHA-256' : 'MD5';
      io.out.write(
        `${result.downloaded ? 'Installed' : 'Already installed (by another process)'} ${voice.name}: size and ${verified} verified. ` +
          `Voice${ids.length === 1 ? '' : 's'}: ${ids.slice(0, 8).join(', ')}${ids.length > 8 ? `, and ${ids.length - 8} more` : ''}.\n`,
      );
    } catch (err) {
      printer.done();
      if (io.signal?.aborted) throw err;
      if (!(err instanceof VerifyError || err instanceof SourceError)) throw err;
      io.err.write(`voxsmith: ${voice.name} was not installed: ${err.message}\n`);
      failed++;
    }
  }
  if (wanted.length > failed && failed === 0) io.out.write('A running Voxsmith picks new voices up within seconds; no restart needed.\n');
  return failed > 0 ? 1 : 0;
}

async function list(values: Record<string, unknown>, io: CliIo, voicesDir: string): Promise<void> {
  const installed = await listInstalled(voicesDir);
  const catalog = await scanVoicesDir(voicesDir);
  const voicesOf = (v: (typeof installed)[number]) => {
    const stem = v.files[0].slice(0, -'.onnx'.length);
    return catalog.voices.filter((x) => x.spec.base === stem || x.spec.base.startsWith(`${stem}/`)).map((x) => x.id);
  };
  if (values.json) {
    io.out.write(
      `${JSON.stringify(
        installed.map((v) => ({ ...v, voices: voicesOf(v) })),
        null,
        2,
      )}\n`,
    );
    return;
  }
  if (installed.length === 0) {
    io.out.write(`No natural voice is installed in ${voicesDir}.\nAdd one with: npx voxsmith voices add en_US-lessac-medium\n`);
  } else {
    const rows = [
      ['NAME', 'ENGINE', 'SIZE', 'VOICE IDS'],
      ...installed.map((v) => {
        const ids = voicesOf(v);
        return [
          v.name,
          v.engine,
          formatBytes(v.size),
          ids.length > 3 ? `${ids.slice(0, 3).join(', ')} (+${ids.length - 3})` : ids.join(', '),
        ];
      }),
    ];
    io.out.write(table(rows));
  }
  for (const p of catalog.problems) io.err.write(`voxsmith: skipped ${p.path}: ${p.reason}\n`);
}

async function remove(names: string[], io: CliIo, voicesDir: string): Promise<number> {
  if (names.length === 0) throw new UsageError('voices remove needs at least one voice name (see: npx voxsmith voices list)');
  let failed = 0;
  for (const name of names) {
    try {
      const files = await removeVoice(voicesDir, name);
      io.out.write(`Removed ${name} (${files.join(', ')}).\n`);
    } catch (err) {
      if (!(err instanceof NotInstalledError)) throw err;
      io.err.write(`voxsmith: ${err.message}\n`);
      failed++;
    }
  }
  return failed > 0 ? 1 : 0;
}

/** Runs the command line; resolves with the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        lang: { type: 'string' },
        language: { type: 'string' },
        quality: { type: 'string' },
        engine: { type: 'string' },
        json: { type: 'boolean' },
        dir: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help || positionals.length === 0 || positionals[0] === 'help') {
      io.out.write(USAGE);
      return 0;
    }
    if (positionals[0] !== 'voices') throw new UsageError(`unknown command ${positionals[0]}`);
    const config = loadConfig(values.dir ? { ...io.env, VOICES_DIR: values.dir } : io.env);
    const voicesDir = values.dir ? resolve(values.dir) : config.voicesDir;
    const sources = { catalogUrl: config.voicesCatalogUrl, kokoroFilesUrl: config.kokoroFilesUrl };
    const [, command, ...rest] = positionals;
    const opts = { ...values, lang: values.lang ?? values.language };
    switch (command) {
      case 'available':
        await available(opts, io, sources, voicesDir);
        return 0;
      case 'add':
        return await add(rest, io, sources, voicesDir);
      case 'list':
        await list(opts, io, voicesDir);
        return 0;
      case 'remove':
        return await remove(rest, io, voicesDir);
      default:
        throw new UsageError(command ? `unknown voices command ${command}` : 'voices needs a command');
    }
  } catch (err) {
    if (err instanceof UsageError || (err instanceof TypeError && (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))) {
      io.err.write(`voxsmith: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    if (err instanceof CatalogError || err instanceof ConfigError) {
      io.err.write(`voxsmith: ${err.message}\n`);
      return 1;
    }
    if (io.signal?.aborted) {
      io.err.write('\nvoxsmith: interrupted; what was downloaded is kept, and the same command continues from there.\n');
      return 130;
    }
    throw err;
  }
}

/** The entry the `voxsmith` bin runs. */
export async function main(): Promise<void> {
  const controller = new AbortController();
  const stop = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const code = await runCli(process.argv.slice(2), {
    out: { write: (s) => process.stdout.write(s), isTTY: process.stdout.isTTY === true, columns: process.stdout.columns },
    err: { write: (s) => process.stderr.write(s) },
    env: process.env,
    signal: controller.signal,
  });
  process.exitCode = code;
}
