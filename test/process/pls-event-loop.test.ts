// A PLS document of 100 000 nested elements (700 KB) once held the event loop for 103 s while saxes read it on the
// main thread. Now PLS is read on a thread of its own, with depth and size limits checked while reading. The
// service runs as its own process (as users run it), so what the probes reach is its event loop, not this test's.
// How long they wait is measured by `npm run bench` (section 21), not bounded here.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LEXICON_LIMITS } from '../../src/schemas/lexicons.ts';
import { signedInKey, startProcess, type ServiceProcess } from '../helpers/process.ts';
import { SmtpSink } from '../helpers/smtp-sink.ts';

const ORIGIN = 'http://voxsmith.test';
const NS = 'xmlns="http://www.w3.org/2005/01/pronunciation-lexicon"';
const dataDir = mkdtempSync(join(tmpdir(), 'voxsmith-pls-'));
const mail = new SmtpSink();
let service: ServiceProcess;
let key: string;

function putPls(name: string, xml: string): Promise<Response> {
  return fetch(`${service.base}/api/lexicons/${name}/pls`, {
    method: 'PUT',
    body: xml,
    headers: { 'content-type': 'application/pls+xml', authorization: `Bearer ${key}` },
  });
}

before(async () => {
  service = await startProcess({ DATA_DIR: dataDir, PUBLIC_URL: ORIGIN, SMTP_URL: await mail.start(), WORKERS: '1' });
  ({ key } = await signedInKey(service.base, mail, 'pls@example.com', ORIGIN));
  // What starts on first use and is not what is timed: the reading thread (under the tests' TypeScript loader its
  // start compiles the worker's modules) and /healthz's response serializer (compiled on its first call).
  assert.equal(
    (await putPls('warm', `<lexicon version="1.0" ${NS}><lexeme><grapheme>a</grapheme><alias>b</alias></lexeme></lexicon>`)).status,
    201,
  );
  await (await fetch(`${service.base}/healthz`)).arrayBuffer();
});
after(async () => {
  await service?.stop();
  await mail.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Asks GET /healthz every 10 ms (at least three times) while `work` runs: the status of each answer. */
async function healthzDuring<T>(work: () => Promise<T>): Promise<{ result: T; statuses: number[] }> {
  let done = false;
  const statuses: number[] = [];
  const probing = (async () => {
    while (!done || statuses.length < 3) {
      const res = await fetch(`${service.base}/healthz`);
      await res.arrayBuffer();
      statuses.push(res.status);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  try {
    const result = await work();
    done = true;
    await probing;
    return { result, statuses };
  } finally {
    done = true;
    await probing;
  }
}

describe('PLS import keeps off the event loop', () => {
  test('100 000 nested elements (700 KB): 400 invalid_pls, and /healthz answers meanwhile', async () => {
    const depth = 100_000;
    const xml = `<lexicon version="1.0" ${NS} alphabet="ipa">${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}</lexicon>`;
    assert.ok(xml.length > 700_000 && xml.length <= LEXICON_LIMITS.plsBytes);
    const { result, statuses } = await healthzDuring(() => putPls('deep', xml));
    assert.equal(result.status, 400);
    const body = (await result.json()) as { code: string; error: string };
    assert.equal(body.code, 'invalid_pls');
    assert.match(body.error, /nested deeper than 32/);
    assert.deepEqual(new Set(statuses), new Set([200]), 'every /healthz probe answered 200');
  });

  test('a megabyte of well-formed PLS (2 000 lexemes with examples) is imported whole', async () => {
    const lexeme = (i: number): string =>
      `<lexeme><grapheme>word${i}</grapheme><alias>the alias of word number ${i}</alias><example>${'an example sentence of this word. '.repeat(10)}</example></lexeme>`;
    const xml = `<lexicon version="1.0" ${NS} alphabet="ipa">${Array.from({ length: 2000 }, (_, i) => lexeme(i)).join('\n')}</lexicon>`;
    assert.ok(xml.length > 700_000 && xml.length <= LEXICON_LIMITS.plsBytes, `${xml.length} bytes`);
    const { result, statuses } = await healthzDuring(() => putPls('big', xml));
    assert.equal(result.status, 201, await result.clone().text());
    assert.deepEqual(new Set(statuses), new Set([200]), 'every /healthz probe answered 200');
    assert.equal(((await result.json()) as { lexicon: { rules: unknown[] } }).lexicon.rules.length, 2000);
  });
});
