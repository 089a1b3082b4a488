// Section 21: work that once held the event loop, timed. The tests check what is answered and that /healthz
// answers meanwhile; how long it all takes is measured here, where a loaded machine only makes a number worse:
// a 4 MB Markdown body of a million one-character headings (refused on its chapter count by the document thread;
// it once held the loop 48 s), a PLS document nested 100 000 deep (refused by the PLS thread; once 103 s), and a
// sentence spoken under a default lexicon of 2 000 long rules (the regular expression that once matched them took
// 12-189 s).
import { request, type Timed } from '../http-client.ts';
import type { Section } from '../report.ts';
import { fixed, median } from '../stats.ts';
import { LEXICON_LIMITS } from '../../src/schemas/lexicons.ts';

const PLS_NS = 'xmlns="http://www.w3.org/2005/01/pronunciation-lexicon"';

/** GET /healthz every 10 ms while `work` runs: its result and the probes' median and slowest answer (ms). */
async function healthzDuring(base: string, work: () => Promise<Timed>): Promise<{ result: Timed; medianMs: number; slowestMs: number }> {
  let done = false;
  const times: number[] = [];
  const probing = (async () => {
    while (!done || times.length < 3) {
      times.push((await request(`${base}/healthz`)).totalMs);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  try {
    return { result: await work(), medianMs: median(times), slowestMs: Math.max(...times) };
  } finally {
    done = true;
    await probing;
  }
}

/** Rule i of the long lexicon: "alpha<i>x0 bravo<i>x1 …" up to 100 characters (the longest grapheme). */
function grapheme(i: number): string {
  return Array.from({ length: 12 }, (_, k) => `${['alpha', 'bravo', 'charlie', 'delta'][k % 4]}${i}x${k}`)
    .join(' ')
    .slice(0, 100)
    .trim();
}

export async function offLoop(base: string, key: string): Promise<Section> {
  const auth = { authorization: `Bearer ${key}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const expect = (what: string, res: Timed, status: number): Timed => {
    if (res.status !== status) throw new Error(`${what} answered ${res.status}: ${res.text()}`);
    return res;
  };

  const headings = JSON.stringify({ text: '# a\n'.repeat(1_000_000), text_type: 'markdown' });
  const j1 = await healthzDuring(base, () => request(`${base}/v1/jobs`, { method: 'POST', headers: json, body: headings }));
  expect('a million headings', j1.result, 413);

  // A first small PLS starts the reading thread, which is not what is timed.
  const pls = (xml: string) =>
    request(`${base}/api/lexicons/bench-pls/pls`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/pls+xml' },
      body: xml,
    });
  expect(
    'a small PLS',
    await pls(`<lexicon version="1.0" ${PLS_NS}><lexeme><grapheme>a</grapheme><alias>b</alias></lexeme></lexicon>`),
    201,
  );
  const depth = 100_000;
  const deep = await healthzDuring(base, () =>
    pls(`<lexicon version="1.0" ${PLS_NS} alphabet="ipa">${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}</lexicon>`),
  );
  expect('a deep PLS', deep.result, 400);

  const rules = Array.from({ length: LEXICON_LIMITS.rulesPerLexicon }, (_, i) => ({ grapheme: grapheme(i), alias: `rule ${i}` }));
  const body = JSON.stringify({ name: 'bench-long', rules, default: true });
  expect('the long lexicon', await request(`${base}/api/lexicons`, { method: 'POST', headers: json, body }), 201);
  const phonemized = expect(
    'phonemize',
    await request(`${base}/v1/phonemize`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ text: `Before ${grapheme(1999)} after.`, voice_id: 'flite-slt' }),
    }),
    200,
  );
  const spoken = expect(
    'speak',
    await request(`${base}/v1/speak`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ text: `Hello ${grapheme(7)} and goodbye.`, voice_id: 'flite-slt', format: 'pcm' }),
      keepBody: false,
    }),
    200,
  );
  // The bench's other sections speak without a lexicon.
  for (const name of ['bench-long', 'bench-pls']) {
    expect(`deleting ${name}`, await request(`${base}/api/lexicons/${name}`, { method: 'DELETE', headers: auth }), 200);
  }

  const lexiconMs = phonemized.totalMs + spoken.totalMs;
  return {
    title: '21. Work kept off the event loop',
    notes: [
      'Each refused or spoken request while GET /healthz is probed every 10 ms (the tests check the answers and that /healthz answers meanwhile; the times are here).',
    ],
    headers: ['request', 'answer', 'time (ms)', '/healthz median (ms)', '/healthz slowest (ms)'],
    rows: [
      [
        '4 MB Markdown job, a million headings',
        String(j1.result.status),
        fixed(j1.result.totalMs, 0),
        fixed(j1.medianMs, 1),
        fixed(j1.slowestMs, 0),
      ],
      [
        'PLS nested 100 000 deep (700 KB)',
        String(deep.result.status),
        fixed(deep.result.totalMs, 0),
        fixed(deep.medianMs, 1),
        fixed(deep.slowestMs, 0),
      ],
      [`phonemize + speak under a ${rules.length}-rule default lexicon`, '200', fixed(lexiconMs, 0), '', ''],
    ],
    summary: [
      ['million-heading job refused (event loop: /healthz slowest)', `${fixed(j1.result.totalMs, 0)} ms (${fixed(j1.slowestMs, 0)} ms)`],
      ['deep PLS refused (event loop: /healthz slowest)', `${fixed(deep.result.totalMs, 0)} ms (${fixed(deep.slowestMs, 0)} ms)`],
      [`phonemize + speak under a ${rules.length}-rule lexicon`, `${fixed(lexiconMs, 0)} ms`],
    ],
  };
}
