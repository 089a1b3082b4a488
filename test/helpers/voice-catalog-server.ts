// A local stand-in for Piper's catalogue (voices.json of rhasspy/piper-voices, in its real format: per voice its
// key, language, quality, speakers and each file's path, size and MD5, the files in the repository's tree) and
// for the Kokoro release files (with a files.json manifest of sizes and SHA-256), serving generated models
// (onnx-models.ts). It can serve one file with a wrong checksum, cut one file's first download half way,
// throttle or trickle a file, and counts what it served so tests can tell a resumed or repeated download.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { kokoroModel, piperConfig, piperModel, voicesNpz, type PiperConfigOptions } from './onnx-models.ts';

export interface CatalogVoiceSpec {
  key: string;
  /** piperConfig options (dataset is taken from the key when not given). */
  config?: PiperConfigOptions;
  paddingBytes?: number;
  /** The catalogue states a checksum the file does not have. */
  wrongChecksum?: boolean;
}

export interface CatalogServerOptions {
  piper: CatalogVoiceSpec[];
  /** Kokoro voice names in the voices file (style rows as in onnx-models.ts's constant voices). */
  kokoroVoices?: string[];
  kokoroPaddingBytes?: number;
  /** Paths whose first GET is cut after half of the body. */
  cutOnce?: string[];
  /** Paths sent in 16 KiB pieces this many ms apart. */
  throttleMs?: Record<string, number>;
  /** Paths sent `bytes` at a time, `everyMs` apart: a mirror that keeps the connection alive but hardly sends. */
  trickle?: Record<string, { bytes: number; everyMs: number }>;
  /** These paths are answered only once voices.json has been read this many times (clients racing for one file). */
  hold?: { paths: string[]; catalogReads: number };
}

export interface ServedRequest {
  path: string;
  range: string | undefined;
  /** Bytes of the body actually written. */
  bytes: number;
}

export interface CatalogServer {
  /** VOICES_CATALOG_URL. */
  catalogUrl: string;
  /** KOKORO_FILES_URL. */
  kokoroUrl: string;
  /** Tree path of a Piper file, e.g. /piper/en/en_US/lessac/medium/en_US-lessac-medium.onnx. */
  piperPath(key: string, ext: '.onnx' | '.onnx.json'): string;
  files: ReadonlyMap<string, Buffer>;
  requests: ServedRequest[];
  /** Answers 503 from now on, and breaks the downloads in progress. */
  setDown(down: boolean): void;
  close(): Promise<void>;
}

const md5 = (b: Uint8Array) => createHash('md5').update(b).digest('hex');
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

function treePath(key: string, ext: string): string {
  const [locale, dataset, quality] = key.split('-');
  const family = locale.split('_')[0];
  return `/piper/${family}/${locale}/${dataset}/${quality}/${key}${ext}`;
}

export async function startCatalogServer(options: CatalogServerOptions): Promise<CatalogServer> {
  const files = new Map<string, Buffer>();
  const catalog: Record<string, unknown> = {};
  for (const v of options.piper) {
    const [locale, dataset, quality] = v.key.split('-');
    const model = Buffer.from(piperModel({ multiSpeaker: (v.config?.speakers?.length ?? 0) > 1, paddingBytes: v.paddingBytes }));
    const config = Buffer.from(JSON.stringify(piperConfig({ dataset, quality, ...v.config })));
    const onnxPath = treePath(v.key, '.onnx');
    const jsonPath = treePath(v.key, '.onnx.json');
    files.set(onnxPath, model);
    files.set(jsonPath, config);
    const [family, region] = locale.split('_');
    catalog[v.key] = {
      key: v.key,
      name: dataset,
      language: {
        code: locale,
        family,
        region,
        name_native: 'English',
        name_english: family === 'en' ? 'English' : family,
        country_english: region === 'US' ? 'United States' : region,
      },
      quality,
      num_speakers: Math.max(1, v.config?.speakers?.length ?? 1),
      speaker_id_map: Object.fromEntries((v.config?.speakers ?? []).map((s, i) => [s, i])),
      files: {
        [onnxPath.slice('/piper/'.length)]: {
          size_bytes: model.length,
          md5_digest: v.wrongChecksum ? md5(Buffer.from('something else')) : md5(model),
        },
        [jsonPath.slice('/piper/'.length)]: { size_bytes: config.length, md5_digest: md5(config) },
        [`${onnxPath.slice('/piper/'.length, onnxPath.lastIndexOf('/'))}/MODEL_CARD`]: {
          size_bytes: 5,
          md5_digest: md5(Buffer.from('card\n')),
        },
      },
      aliases: [],
    };
    files.set(`${onnxPath.slice(0, onnxPath.lastIndexOf('/'))}/MODEL_CARD`, Buffer.from('card\n'));
  }
  files.set('/piper/voices.json', Buffer.from(JSON.stringify(catalog, null, 2)));

  const kokoroNames = options.kokoroVoices ?? ['af_heart', 'am_michael', 'bf_emma'];
  const styles = Object.fromEntries(kokoroNames.map((n, i) => [n, () => 0.1 + 0.05 * i]));
  const bin = Buffer.from(voicesNpz(styles));
  const manifest: Record<string, { size_bytes: number; sha256_digest: string }> = {
    'voices-v1.0.bin': { size_bytes: bin.length, sha256_digest: sha256(bin) },
  };
  files.set('/kokoro/voices-v1.0.bin', bin);
  for (const name of ['kokoro-v1.0.onnx', 'kokoro-v1.0.fp16.onnx', 'kokoro-v1.0.int8.onnx']) {
    const model = Buffer.from(kokoroModel({ paddingBytes: options.kokoroPaddingBytes }));
    files.set(`/kokoro/${name}`, model);
    manifest[name] = { size_bytes: model.length, sha256_digest: sha256(model) };
  }
  files.set('/kokoro/files.json', Buffer.from(JSON.stringify(manifest)));

  const requests: ServedRequest[] = [];
  const cut = new Set(options.cutOnce ?? []);
  let down = false;
  const active = new Set<ServerResponse>();
  let catalogReads = 0;
  const released: Array<() => void> = [];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    active.add(res);
    res.once('close', () => active.delete(res));
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const record: ServedRequest = { path, range: req.headers.range, bytes: 0 };
    requests.push(record);
    if (down) {
      res.writeHead(503).end('down');
      return;
    }
    const body = files.get(path);
    if (!body) {
      res.writeHead(404).end('not found');
      return;
    }
    if (path === '/piper/voices.json' && ++catalogReads >= (options.hold?.catalogReads ?? Infinity))
      for (const go of released.splice(0)) go();
    if (options.hold?.paths.includes(path) && catalogReads < options.hold.catalogReads) await new Promise<void>((r) => released.push(r));
    let start = 0;
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (range) {
      start = Number(range[1]);
      if (start >= body.length) {
        res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
        return;
      }
      res.writeHead(206, {
        'content-range': `bytes ${start}-${body.length - 1}/${body.length}`,
        'content-length': body.length - start,
        'accept-ranges': 'bytes',
      });
    } else {
      res.writeHead(200, { 'content-length': body.length, 'accept-ranges': 'bytes' });
    }
    let end = body.length;
    if (cut.has(path) && start === 0) {
      cut.delete(path);
      end = Math.floor(body.length / 2);
    }
    const trickle = options.trickle?.[path];
    const delay = trickle?.everyMs ?? options.throttleMs?.[path];
    const piece = trickle?.bytes ?? (delay ? 16 * 1024 : end - start);
    for (let at = start; at < end; at += piece) {
      const chunk = body.subarray(at, Math.min(end, at + piece));
      if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
      record.bytes += chunk.length;
      if (delay) await new Promise((r) => setTimeout(r, delay));
      if (res.destroyed) return;
    }
    if (end < body.length) {
      // The connection breaks half way, as a dropped download does.
      await new Promise((r) => setTimeout(r, 20));
      res.socket?.destroy();
      return;
    }
    res.end();
  };

  const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    catalogUrl: `${base}/piper/voices.json`,
    kokoroUrl: `${base}/kokoro/`,
    piperPath: (key, ext) => treePath(key, ext),
    files,
    requests,
    setDown: (d) => {
      down = d;
      if (d) for (const res of active) res.socket?.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
