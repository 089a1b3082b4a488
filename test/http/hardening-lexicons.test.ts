// What an outside security re-test found on lexicons and text expansion, through the real server: a PLS document
// read without limits (its event-loop side: test/process/pls-event-loop.test.ts); a lexicon within the limits built a regular expression too large to run; aliases
// and spell-outs turned a text within MAX_TEXT_CHARS into hours of speech; /v1/phonemize ran beside the per-key
// concurrency limit; parallel default-lexicon updates raced into 500s on PostgreSQL.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LEXICON_LIMITS } from '../../src/schemas/lexicons.ts';
import { useService } from '../helpers/fixture.ts';

// Two of one key's requests at once, so the concurrency test needs few.

const s = useService({ env: { MAX_CONCURRENT_PER_KEY: '2' } });

async function codeOf(res: Response): Promise<string> {
  return ((await res.json()) as { code: string }).code;
}

describe('PLS import: limits while parsing (the event loop: test/process/pls-event-loop.test.ts)', () => {
  test('too many graphemes and over-long text stop the reading where they are', async () => {
    const { key } = await s.newKey('pls-limits@example.com');
    const many = `<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon">${Array.from({ length: 2001 }, (_, i) => `<lexeme><grapheme>w${i}</grapheme><alias>x</alias></lexeme>`).join('')}</lexicon>`;
    const res = await s.request('/api/lexicons/many/pls', {
      method: 'PUT',
      body: many,
      headers: { 'content-type': 'application/pls+xml' },
      bearer: key,
    });
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as { error: string }).error, /more than 2000 graphemes/);
    const long = `<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon"><lexeme><grapheme>${'x'.repeat(5000)}</grapheme><alias>y</alias></lexeme></lexicon>`;
    const res2 = await s.request('/api/lexicons/long/pls', {
      method: 'PUT',
      body: long,
      headers: { 'content-type': 'application/pls+xml' },
      bearer: key,
    });
    assert.equal(res2.status, 400);
    assert.equal(await codeOf(res2), 'invalid_pls');
  });
});

describe('lexicon matching scales with the text, not the rules', () => {
  test('a default lexicon of 2 000 rules of 100 characters: a sentence is spoken, the rules that match are applied', async () => {
    const { key } = await s.newKey('long-lexicon@example.com');
    // Rule i: "alpha<i> bravo<i> …" up to 100 characters (the longest grapheme), each aliased.
    const grapheme = (i: number): string =>
      Array.from({ length: 12 }, (_, k) => `${['alpha', 'bravo', 'charlie', 'delta'][k % 4]}${i}x${k}`)
        .join(' ')
        .slice(0, 100)
        .trim();
    const rules = Array.from({ length: LEXICON_LIMITS.rulesPerLexicon }, (_, i) => ({ grapheme: grapheme(i), alias: `rule ${i}` }));
    const created = await s.request('/api/lexicons', { json: { name: 'long', rules, default: true }, bearer: key });
    assert.equal(created.status, 201, await created.clone().text());
    const phonemized = await s.request('/v1/phonemize', {
      json: { text: `Before ${grapheme(1999)} after.`, voice_id: 'flite-slt' },
      bearer: key,
    });
    assert.equal(phonemized.status, 200, await phonemized.clone().text());
    const { normalized } = (await phonemized.json()) as { normalized: string };
    assert.match(normalized, /^Before rule one thousand nine hundred (and )?ninety[- ]nine after/i, normalized);
    const res = await s.request('/v1/speak', {
      json: { text: `Hello ${grapheme(7)} and goodbye.`, voice_id: 'flite-slt', format: 'pcm' },
      bearer: key,
      headers: {},
    });
    assert.equal(res.status, 200);
    assert.ok((await res.arrayBuffer()).byteLength > 48_000, 'speech');
    // How long this takes is measured by `npm run bench` (section 21); the regular expression this replaced took
    // 12-189 s and then failed.
  });
});

describe('the text limit applies to what is said: after aliases and spell-outs', () => {
  test('a lexicon alias that multiplies the text past MAX_TEXT_CHARS: 413 text_too_long before any audio, on every door', async () => {
    const { key } = await s.newKey('amplify@example.com');
    const alias = 'and so on '.repeat(LEXICON_LIMITS.aliasChars / 10).trim();
    const created = await s.request('/api/lexicons', { json: { name: 'amp', rules: [{ grapheme: 'a', alias }] }, bearer: key });
    assert.equal(created.status, 201);
    // 10 000 characters that expand to 2.5 million.
    const text = 'a '.repeat(5000);
    const doors: Array<[string, Promise<Response>]> = [
      ['speak', s.request('/v1/speak', { json: { text, lexicons: ['amp'], format: 'pcm' }, bearer: key })],
      ['phonemize', s.request('/v1/phonemize', { json: { text, lexicons: ['amp'] }, bearer: key })],
    ];
    for (const [door, pending] of doors) {
      const res = await pending;
      assert.equal(res.status, 413, door);
      const body = (await res.json()) as { code: string; error: string };
      assert.equal(body.code, 'text_too_long', door);
      assert.match(body.error, /alias/, door);
    }
    // Within the limit once expanded: spoken.
    const ok = await s.request('/v1/speak', { json: { text: 'a', lexicons: ['amp'], format: 'pcm' }, bearer: key });
    assert.equal(ok.status, 200);
    await ok.arrayBuffer();
  });

  test('<say-as interpret-as="characters"> of 9 999 characters and long <sub> aliases: 413 text_too_long', async () => {
    const { key } = await s.newKey('spell@example.com');
    const cases: Array<[string, string]> = [
      ['say-as characters', `<speak><say-as interpret-as="characters">${'x'.repeat(9999)}</say-as></speak>`],
      ['say-as spell-out', `<speak><say-as interpret-as="spell-out">${'w'.repeat(5000)}</say-as></speak>`],
      ['sub aliases', `<speak>${`<sub alias="${'y'.repeat(1000)}">a</sub>`.repeat(11)}</speak>`],
    ];
    for (const [what, text] of cases) {
      const res = await s.request('/v1/speak', { json: { text, format: 'pcm' }, bearer: key });
      assert.equal(res.status, 413, what);
      const body = (await res.json()) as { code: string; error: string };
      assert.equal(body.code, 'text_too_long', what);
      assert.match(body.error, /expanded/, what);
    }
    const fine = await s.request('/v1/speak', {
      json: { text: '<speak><say-as interpret-as="characters">ABC</say-as></speak>', format: 'pcm' },
      bearer: key,
    });
    assert.equal(fine.status, 200);
    await fine.arrayBuffer();
  });
});

describe('/v1/phonemize counts toward MAX_CONCURRENT_PER_KEY', () => {
  test('with the key’s two slots taken by speech, a phonemize is refused 429 concurrency_limited; freed, it answers', async () => {
    const { key } = await s.newKey('phon-concurrency@example.com');
    const long = 'The quick brown fox jumps over the lazy dog, and then it runs far away into the woods. '.repeat(60);
    const aborts = [new AbortController(), new AbortController()];
    const held = await Promise.all(
      aborts.map((a) =>
        fetch(`${s.base}/v1/speak`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ text: long, voice_id: 'flite-slt', format: 'pcm' }),
          signal: a.signal,
        }),
      ),
    );
    for (const res of held) assert.equal(res.status, 200);
    const refused = await s.request('/v1/phonemize', { json: { text: 'Hello.', voice_id: 'flite-slt' }, bearer: key });
    assert.equal(refused.status, 429);
    assert.equal(await codeOf(refused), 'concurrency_limited');
    assert.ok(refused.headers.get('retry-after'));
    for (const a of aborts) a.abort();
    for (const res of held) await res.arrayBuffer().catch(() => undefined);
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      const res = await s.request('/v1/phonemize', { json: { text: 'Hello.', voice_id: 'flite-slt' }, bearer: key });
      status = res.status;
      await res.arrayBuffer();
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(status, 200, 'the slots were given back');
  });
});

describe('default lexicon updates in parallel', () => {
  test('20 parallel PATCH {default: true} on different lexicons: every one answers 200, exactly one default remains', async () => {
    const { key } = await s.newKey('default-race@example.com');
    const names = Array.from({ length: 20 }, (_, i) => `lex${i}`);
    for (const name of names) {
      const res = await s.request('/api/lexicons', { json: { name, rules: [{ grapheme: 'WHO', alias: name }] }, bearer: key });
      assert.equal(res.status, 201);
    }
    const answers = await Promise.all(
      names.map((name) => s.request(`/api/lexicons/${name}`, { method: 'PATCH', json: { default: true }, bearer: key })),
    );
    assert.deepEqual(
      answers.map((r) => r.status),
      names.map(() => 200),
      `store: ${s.store}`,
    );
    const list = (await (await s.request('/api/lexicons', { bearer: key })).json()) as {
      lexicons: Array<{ name: string; default: boolean }>;
    };
    assert.equal(list.lexicons.filter((l) => l.default).length, 1);
    // And the rename race: two lexicons renamed to one name at once, one wins and the other is told why.
    const renames = await Promise.all([
      s.request('/api/lexicons/lex0', { method: 'PATCH', json: { name: 'same' }, bearer: key }),
      s.request('/api/lexicons/lex1', { method: 'PATCH', json: { name: 'same' }, bearer: key }),
    ]);
    assert.deepEqual(renames.map((r) => r.status).sort(), [200, 409]);
  });
});
