// Reading the catalogue and voice files from where VOICES_CATALOG_URL and KOKORO_FILES_URL point: http(s), or
// file: for a mirror on a mounted disk. A file is read from an offset (HTTP Range) so a cut download resumes.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export class SourceError extends Error {
  constructor(
    message: string,
    /** Worth another try (a cut connection, a 5xx); a 404 or a wrong size is not. */
    readonly retry: boolean,
  ) {
    super(message);
  }
}

export interface OpenedSource {
  /** The offset the body starts at: the one asked for, or 0 when the server ignored the range. */
  start: number;
  body: AsyncIterable<Uint8Array>;
}

const USER_AGENT = 'voxsmith-voice-installer';

function describe(err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err instanceof Error ? err.message : String(err)}${cause}`;
}

/** The body of `url` from byte `offset` on. */
export async function openSource(url: URL, offset: number, signal?: AbortSignal): Promise<OpenedSource> {
  if (url.protocol === 'file:') {
    const path = fileURLToPath(url);
    try {
      const { size } = await stat(path);
      if (offset > size) throw new SourceError(`${url.href} is ${size} bytes, shorter than the ${offset} already downloaded`, false);
    } catch (err) {
      if (err instanceof SourceError) throw err;
      throw new SourceError(`cannot read ${path}: ${describe(err)}`, false);
    }
    return { start: offset, body: createReadStream(path, { start: offset, signal }) };
  }
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { 'user-agent': USER_AGENT, ...(offset > 0 ? { range: `bytes=${offset}-` } : {}) },
      redirect: 'follow',
      signal,
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new SourceError(`cannot reach ${url.host}: ${describe(err)}`, true);
  }
  if (res.status === 206) {
    const range = /^bytes (\d+)-/.exec(res.headers.get('content-range') ?? '');
    const start = range ? Number(range[1]) : NaN;
    if (start !== offset) {
      await res.body?.cancel();
      throw new SourceError(`${url.href} answered a range starting at ${range ? start : 'an unknown byte'}, not ${offset}`, true);
    }
    return { start, body: res.body ?? emptyBody() };
  }
  if (res.status === 200) return { start: 0, body: res.body ?? emptyBody() };
  await res.body?.cancel();
  if (res.status === 416 && offset > 0) return { start: offset, body: emptyBody() };
  const retry = res.status >= 500 || res.status === 408 || res.status === 429;
  throw new SourceError(`${url.href} answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`, retry);
}

async function* emptyBody(): AsyncGenerator<Uint8Array> {}

/** A whole text resource (the catalogue), at most `maxBytes`. */
export async function fetchText(url: URL, maxBytes: number, signal?: AbortSignal): Promise<string> {
  const timeout = AbortSignal.timeout(30_000);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let opened: OpenedSource;
  try {
    opened = await openSource(url, 0, combined);
  } catch (err) {
    if (timeout.aborted) throw new SourceError('no answer within 30 s', true);
    throw err;
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of opened.body) {
      total += chunk.length;
      if (total > maxBytes) throw new SourceError(`larger than ${maxBytes} bytes`, false);
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof SourceError) throw err;
    if (timeout.aborted) throw new SourceError('no complete answer within 30 s', true);
    throw new SourceError(`the connection broke: ${describe(err)}`, true);
  }
  return Buffer.concat(chunks).toString('utf8');
}
