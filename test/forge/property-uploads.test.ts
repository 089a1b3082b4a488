// Property-based tests: random and mutated multipart bodies to the clone route, and WAV, MP3,
// Ogg (Vorbis, Opus) and FLAC files with mutated or truncated bytes as clone uploads, never give a 5xx
// or a hang; every 4xx is the error envelope, and the server is healthy afterwards.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { startServer, type TestServer } from '../helpers/server.ts';
import { assertClean, assertHealthy, post, PROPERTY_ENV } from '../helpers/property.ts';

let s: TestServer;
let key: string;
const files = new Map<string, Buffer>();

/**
 * Small files of every container the clone accepts: 3.5 s of a tone, so that a file still valid after
 * mutation is decoded and measured in full (and refused as not speech) without a costly clone fit.
 */
const FORMATS: Record<string, string[]> = {
  wav: ['-c:a', 'pcm_s16le'],
  mp3: ['-c:a', 'libmp3lame', '-b:a', '32k'],
  ogg: ['-c:a', 'libvorbis', '-q:a', '0'],
  opus: ['-c:a', 'libopus', '-b:a', '16k'],
  flac: ['-c:a', 'flac'],
};

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'voxsmith-property-'));
  try {
    for (const [ext, args] of Object.entries(FORMATS)) {
      const out = join(dir, `tone.${ext}`);
      const r = spawnSync('ffmpeg', [
        '-v',
        'error',
        '-f',
        'lavfi',
        '-i',
        'sine=frequency=300:duration=3.5',
        '-ac',
        '1',
        '-ar',
        '16000',
        ...args,
        out,
      ]);
      assert.equal(r.status, 0, r.stderr?.toString());
      files.set(ext, readFileSync(out));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  s = await startServer({ env: PROPERTY_ENV });
  key = (await s.newKey('property-uploads@example.com')).key;
});
after(async () => {
  await s?.close();
});

function multipart(boundary: string, parts: Array<{ headers: string; body: Uint8Array }>, close = true): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) chunks.push(Buffer.from(`--${boundary}\r\n${p.headers}\r\n\r\n`), Buffer.from(p.body), Buffer.from('\r\n'));
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

function upload(body: Uint8Array, contentType: string): Promise<{ status: number; text: string }> {
  return post(s, '/v1/forge/clone', body, { authorization: `Bearer ${key}`, 'content-type': contentType });
}

const boundaryChars = fc.string({ minLength: 0, maxLength: 300, unit: fc.constantFrom(...'abcXYZ0189-_=+/.:\'()? ,"\\\r\n;') });
const partHeader = fc.oneof(
  fc.constant('Content-Disposition: form-data; name="audio"; filename="a.wav"\r\nContent-Type: audio/wav'),
  fc.constant('Content-Disposition: form-data; name="name"'),
  fc.string({ maxLength: 120, unit: 'binary' }),
  fc
    .tuple(fc.constantFrom('audio', 'name', 'language', 'transcript', '', '__proto__', 'a"b'), fc.string({ maxLength: 40 }))
    .map(([name, file]) => `Content-Disposition: form-data; name="${name}"; filename="${file}"\r\nContent-Type: ${file}`),
);

describe('property: clone uploads', () => {
  test('random and cut multipart bodies', async () => {
    await fc.assert(
      fc.asyncProperty(
        boundaryChars,
        fc.boolean(),
        fc.array(fc.record({ headers: partHeader, body: fc.uint8Array({ maxLength: 2000 }) }), { maxLength: 4 }),
        fc.option(fc.nat(), { nil: undefined }),
        fc.constantFrom(
          'multipart/form-data; boundary=',
          'multipart/form-data;boundary="',
          'multipart/form-data',
          'multipart/mixed; boundary=',
          'text/plain; boundary=',
        ),
        async (boundary, real, parts, cut, type) => {
          const withAudio = real
            ? [{ headers: 'Content-Disposition: form-data; name="name"', body: Buffer.from('Prop') }, ...parts]
            : parts;
          let body = multipart(boundary, withAudio, cut === undefined);
          if (cut !== undefined) body = body.subarray(0, cut % (body.length + 1));
          const contentType = type.endsWith('=') ? `${type}${boundary}` : type.endsWith('"') ? `${type}${boundary}"` : type;
          // Header values cannot carry CR, LF or non-Latin-1: such boundaries only go into the body.
          const safeType = /^[\x20-\x7e]*$/.test(contentType) ? contentType : 'multipart/form-data; boundary=x';
          assertClean(await upload(body, safeType), `multipart ${JSON.stringify(safeType).slice(0, 120)} ${body.length} bytes`);
        },
      ),
      { numRuns: 120, seed: 1016 },
    );
  });

  test('WAV, MP3, Ogg Vorbis, Ogg Opus and FLAC files, mutated and truncated', async () => {
    const boundary = 'voxsmith-property-boundary';
    const send = (ext: string, bytes: Uint8Array) =>
      upload(
        multipart(boundary, [
          { headers: 'Content-Disposition: form-data; name="name"', body: Buffer.from('Mutant') },
          {
            headers: `Content-Disposition: form-data; name="audio"; filename="a.${ext}"\r\nContent-Type: application/octet-stream`,
            body: bytes,
          },
        ]),
        `multipart/form-data; boundary=${boundary}`,
      );
    // Unharmed, every file decodes and is measured in full: the parsers are really reached.
    for (const [ext, bytes] of files) {
      const res = await send(ext, bytes);
      assert.equal(res.status, 422, `${ext}: ${res.text}`);
      assert.equal((JSON.parse(res.text) as { code: string }).code, 'not_speech');
    }
    const mutation = fc.record({
      ext: fc.constantFrom(...Object.keys(FORMATS)),
      // Most changes land in the headers, where the parsers read lengths, counts and rates.
      flips: fc.array(fc.record({ pos: fc.oneof(fc.nat(200), fc.nat()), byte: fc.integer({ min: 0, max: 255 }) }), { maxLength: 8 }),
      cut: fc.option(fc.nat(), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(mutation, async ({ ext, flips, cut }) => {
        const original = files.get(ext) as Buffer;
        let bytes = Buffer.from(original);
        for (const f of flips) bytes[f.pos % bytes.length] = f.byte;
        if (cut !== undefined) bytes = bytes.subarray(0, cut % (bytes.length + 1));
        const res = await send(ext, bytes);
        assertClean(res, `${ext} cut ${cut} flips ${JSON.stringify(flips)}`);
        // A tone is never cloned, however its file was damaged.
        assert.notEqual(res.status, 201, res.text);
      }),
      { numRuns: 150, seed: 2016 },
    );
  });

  test('the server is healthy afterwards', async () => {
    await assertHealthy(s, key);
  });
});
