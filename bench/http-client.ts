// A minimal HTTP client over node:http with keep-alive, timing the first body byte and the end.
// node:http rather than fetch: the load driver shares two cores with the server, and its own cost
// (web streams per response) would show up in the server's numbers.
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { FORMATS } from '../src/audio/encoders/index.ts';

export const agent = new Agent({ keepAlive: true, maxSockets: 256 });

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Keep the body (small JSON answers); otherwise only its length is counted (error bodies are kept). */
  keepBody?: boolean;
}

export interface Timed {
  status: number;
  headers: IncomingHttpHeaders;
  /** From sending the request to the first byte of the body (or the end, for an empty body). */
  ttfbMs: number;
  totalMs: number;
  bytes: number;
  text(): string;
  /** The body as bytes (audio); empty unless kept (RequestOptions.keepBody). */
  body(): Buffer;
}

export function request(url: string, options: RequestOptions = {}): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers, agent }, (res) => {
      const keep = (options.keepBody ?? true) || (res.statusCode ?? 0) >= 400;
      let first = 0;
      let bytes = 0;
      const parts: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        first ||= performance.now();
        bytes += chunk.length;
        if (keep) parts.push(chunk);
      });
      res.on('error', reject);
      res.on('end', () => {
        const end = performance.now();
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          ttfbMs: (first || end) - t0,
          totalMs: end - t0,
          bytes,
          text: () => Buffer.concat(parts).toString('utf8'),
          body: () => Buffer.concat(parts),
        });
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Bytes per second of /v1/speak's pcm: 16-bit mono at the service's output rate. */
export const PCM_BYTES_PER_SECOND = FORMATS.pcm.sampleRate * 2;

/** POST /v1/speak with the key. */
export function speak(
  base: string,
  key: string,
  body: { text: string; voice_id?: string; format?: string; sample_rate?: number },
): Promise<Timed> {
  return request(`${base}/v1/speak`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    keepBody: false,
  });
}
