// /api/lexicons through the real server: CRUD, PLS import, limits and ownership.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { VoxsmithClient, VoxsmithError } from '../../client/index.ts';
import { LEXICON_LIMITS } from '../../src/schemas/lexicons.ts';
import { useService } from '../helpers/fixture.ts';
import type { TestServer } from '../helpers/server.ts';

let alice: { key: string; cookie: string };
let bob: { key: string; cookie: string };
const s = useService({}, async () => {
  alice = await s.newKey('alice-lex@example.com');
  bob = await s.newKey('bob-lex@example.com');
});

interface Body {
  error?: string;
  code?: string;
  lexicon?: { name: string; default: boolean; rules: Record<string, string>[] };
  lexicons?: { name: string; default: boolean; rule_count: number }[];
}

async function call(path: string, init: Parameters<TestServer['request']>[1] = {}): Promise<{ status: number; body: Body }> {
  const res = await s.request(path, init);
  return { status: res.status, body: (await res.json()) as Body };
}

function pls(lexemes: string, attrs = 'alphabet="ipa"'): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" ${attrs} xml:lang="en-US">
${lexemes}
</lexicon>`;
}

function putPls(name: string, xml: string, bearer = alice.key, type = 'application/pls+xml') {
  return call(`/api/lexicons/${name}/pls`, { method: 'PUT', body: xml, headers: { 'content-type': type }, bearer });
}

describe('lexicons: create, read, replace, rename, delete', () => {
  test('a full round trip with an API key', async () => {
    const created = await call('/api/lexicons', {
      bearer: alice.key,
      json: {
        name: 'acronyms',
        rules: [
          { grapheme: '  WHO ', alias: 'World  Health Organization' },
          { grapheme: 'tomato', phoneme: 't@"meItoU', alphabet: 'x-sampa' },
        ],
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(created.body.lexicon?.rules, [
      { grapheme: 'WHO', alias: 'World Health Organization' },
      { grapheme: 'tomato', phoneme: 't@"meItoU', alphabet: 'x-sampa' },
    ]);
    assert.equal(created.body.lexicon?.default, false);

    const list = await call('/api/lexicons', { bearer: alice.key });
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.lexicons?.map((l) => [l.name, l.rule_count, l.default]),
      [['acronyms', 2, false]],
    );

    const again = await call('/api/lexicons', { bearer: alice.key, json: { name: 'acronyms', rules: [] } });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'lexicon_exists');

    const replaced = await call('/api/lexicons/acronyms', {
      method: 'PUT',
      bearer: alice.key,
      json: { rules: [{ grapheme: 'NASA', alias: 'Nasa' }] },
    });
    assert.equal(replaced.status, 200);
    assert.deepEqual(replaced.body.lexicon?.rules, [{ grapheme: 'NASA', alias: 'Nasa' }]);

    const renamed = await call('/api/lexicons/acronyms', { method: 'PATCH', bearer: alice.key, json: { name: 'space', default: true } });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.lexicon?.name, 'space');
    assert.equal(renamed.body.lexicon?.default, true);
    assert.equal((await call('/api/lexicons/acronyms', { bearer: alice.key })).status, 404);

    const got = await call('/api/lexicons/space', { bearer: alice.key });
    assert.equal(got.status, 200);
    assert.equal(got.body.lexicon?.rules.length, 1);

    const deleted = await call('/api/lexicons/space', { method: 'DELETE', bearer: alice.key });
    assert.equal(deleted.status, 200);
    const gone = await call('/api/lexicons/space', { bearer: alice.key });
    assert.equal(gone.status, 404);
    assert.equal(gone.body.code, 'lexicon_not_found');
    assert.equal((await call('/api/lexicons/space', { method: 'DELETE', bearer: alice.key })).status, 404);
  });

  test('one default per account: making another the default unsets the first', async () => {
    await call('/api/lexicons', { bearer: alice.key, json: { name: 'd1', rules: [{ grapheme: 'a1', alias: 'one' }], default: true } });
    await call('/api/lexicons', { bearer: alice.key, json: { name: 'd2', rules: [{ grapheme: 'a2', alias: 'two' }], default: true } });
    const list = await call('/api/lexicons', { bearer: alice.key });
    const flags = Object.fromEntries((list.body.lexicons ?? []).map((l) => [l.name, l.default]));
    assert.equal(flags.d1, false);
    assert.equal(flags.d2, true);
    await call('/api/lexicons/d1', { method: 'PATCH', bearer: alice.key, json: { default: true } });
    const after = await call('/api/lexicons', { bearer: alice.key });
    assert.deepEqual(
      (after.body.lexicons ?? []).filter((l) => l.default).map((l) => l.name),
      ['d1'],
    );
    for (const n of ['d1', 'd2']) await call(`/api/lexicons/${n}`, { method: 'DELETE', bearer: alice.key });
  });

  test('session cookie works, but cookie writes need the service origin (CSRF)', async () => {
    const noOrigin = await call('/api/lexicons', { cookie: alice.cookie, json: { name: 'csrf', rules: [] } });
    assert.equal(noOrigin.status, 403);
    assert.equal(noOrigin.body.code, 'csrf');
    const ok = await call('/api/lexicons', { cookie: alice.cookie, sameOrigin: true, json: { name: 'csrf', rules: [] } });
    assert.equal(ok.status, 201);
    assert.equal((await call('/api/lexicons/csrf', { cookie: alice.cookie })).status, 200);
    assert.equal((await call('/api/lexicons/csrf', { method: 'DELETE', cookie: alice.cookie, sameOrigin: true })).status, 200);
  });

  test('without credentials: 401', async () => {
    const res = await call('/api/lexicons');
    assert.equal(res.status, 401);
  });

  test('bad rules and names are 400 with a message naming the problem', async () => {
    const cases: [unknown, RegExp][] = [
      [{ name: 'x y', rules: [] }, /name/],
      [{ name: 'ok', rules: [{ grapheme: 'a', alias: 'b', phoneme: 'c' }] }, /./],
      [{ name: 'ok', rules: [{ grapheme: '', alias: 'b' }] }, /./],
      [{ name: 'ok', rules: [{ grapheme: 'x'.repeat(LEXICON_LIMITS.graphemeChars + 1), alias: 'b' }] }, /./],
      [{ name: 'ok', rules: [{ grapheme: 'a', phoneme: 'b', alphabet: 'arpabet' }] }, /./],
      [
        {
          name: 'ok',
          rules: [
            { grapheme: 'Who', alias: 'b' },
            { grapheme: 'WHO', alias: 'c' },
          ],
        },
        /twice/,
      ],
      [{ name: 'ok', rules: [{ grapheme: '...', alias: 'dots' }] }, /letter or digit/],
    ];
    for (const [json, message] of cases) {
      const res = await call('/api/lexicons', { bearer: alice.key, json });
      assert.equal(res.status, 400, JSON.stringify(json));
      assert.match(res.body.error ?? '', message, JSON.stringify(json));
    }
    assert.equal((await call('/api/lexicons/ok', { bearer: alice.key })).status, 404, 'nothing was stored');
  });

  test('too many rules: 400', async () => {
    const rules = Array.from({ length: LEXICON_LIMITS.rulesPerLexicon + 1 }, (_, i) => ({ grapheme: `w${i}`, alias: 'x' }));
    const res = await call('/api/lexicons', { bearer: alice.key, json: { name: 'big', rules } });
    assert.equal(res.status, 400);
  });
});

describe('lexicons: ownership', () => {
  test("another account's lexicon is 404 for every verb, and is left untouched", async () => {
    assert.equal(
      (await call('/api/lexicons', { bearer: alice.key, json: { name: 'mine', rules: [{ grapheme: 'x1', alias: 'ex one' }] } })).status,
      201,
    );
    for (const [method, json] of [
      ['GET', undefined],
      ['PUT', { rules: [] }],
      ['PATCH', { default: true }],
      ['DELETE', undefined],
    ] as const) {
      const res = await call('/api/lexicons/mine', { method, bearer: bob.key, ...(json ? { json } : {}) });
      assert.equal(res.status, 404, method);
      assert.equal(res.body.code, 'lexicon_not_found');
    }
    const imported = await putPls('mine', pls('<lexeme><grapheme>a</grapheme><alias>b</alias></lexeme>'), bob.key);
    assert.equal(imported.status, 201, 'bob gets a lexicon of his own with that name');
    const list = await call('/api/lexicons', { bearer: bob.key });
    assert.deepEqual(
      list.body.lexicons?.map((l) => l.name),
      ['mine'],
    );
    const alices = await call('/api/lexicons/mine', { bearer: alice.key });
    assert.deepEqual(alices.body.lexicon?.rules, [{ grapheme: 'x1', alias: 'ex one' }]);
  });
});

describe('lexicons: PLS import', () => {
  test('a valid PLS document: aliases, phonemes, several graphemes, the preferred pronunciation, per-phoneme alphabet', async () => {
    const xml = pls(`
  <meta name="author" content="test"/>
  <lexeme>
    <grapheme>WHO</grapheme>
    <alias>World Health Organization</alias>
  </lexeme>
  <lexeme role="noun">
    <grapheme>tomato</grapheme>
    <grapheme>Tomatoe</grapheme>
    <phoneme>təˈmeɪtoʊ</phoneme>
    <phoneme prefer="true">təˈmɑːtəʊ</phoneme>
    <example>I like tomatoes</example>
  </lexeme>
  <lexeme>
    <grapheme><![CDATA[R&D]]></grapheme>
    <phoneme alphabet="x-sampa">A@r\\ @n "di:</phoneme>
  </lexeme>`);
    const res = await putPls('imported', xml);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body.lexicon?.rules, [
      { grapheme: 'WHO', alias: 'World Health Organization' },
      { grapheme: 'tomato', phoneme: 'təˈmɑːtəʊ' },
      { grapheme: 'Tomatoe', phoneme: 'təˈmɑːtəʊ' },
      { grapheme: 'R&D', phoneme: 'A@r\\ @n "di:', alphabet: 'x-sampa' },
    ]);
    const again = await putPls('imported', pls('<lexeme><grapheme>GIF</grapheme><phoneme>dʒɪf</phoneme></lexeme>'), alice.key, 'text/xml');
    assert.equal(again.status, 200, 'an import into an existing name replaces its rules');
    assert.deepEqual(again.body.lexicon?.rules, [{ grapheme: 'GIF', phoneme: 'dʒɪf' }]);
  });

  test('x-sampa on <lexicon> applies to its phonemes', async () => {
    const res = await putPls('sampa', pls('<lexeme><grapheme>data</grapheme><phoneme>"deIt@</phoneme></lexeme>', 'alphabet="x-sampa"'));
    assert.equal(res.status, 201);
    assert.deepEqual(res.body.lexicon?.rules, [{ grapheme: 'data', phoneme: '"deIt@', alphabet: 'x-sampa' }]);
  });

  test('malformed XML is 400 invalid_pls naming the line and column', async () => {
    const res = await putPls(
      'broken',
      '<lexicon alphabet="ipa">\n  <lexeme>\n    <grapheme>a</grapheme>\n    <alias>b</alia>\n  </lexeme>\n</lexicon>',
    );
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'invalid_pls');
    assert.match(res.body.error ?? '', /line 4, column \d+/);
    assert.equal((await call('/api/lexicons/broken', { bearer: alice.key })).status, 404);
  });

  test('XML that is not PLS, and unsupported alphabets, are 400 with a position', async () => {
    for (const [xml, message] of [
      ['<html><body/></html>', /root element is <html>/],
      [pls('<lexeme><alias>b</alias></lexeme>'), /no <grapheme>/],
      [pls('<lexeme><grapheme>a</grapheme></lexeme>'), /neither <phoneme> nor <alias>/],
      [pls('<lexeme><grapheme>a</grapheme><phoneme>b</phoneme></lexeme>', 'alphabet="arpabet"'), /alphabet "arpabet"/],
      ['', /no <lexicon>|root|end/],
      ['<!DOCTYPE lexicon [<!ENTITY x "y">]><lexicon>&x;</lexicon>', /./],
    ] as const) {
      const res = await putPls('notpls', xml);
      assert.equal(res.status, 400, xml);
      assert.equal(res.body.code, 'invalid_pls', xml);
      assert.match(res.body.error ?? '', message, xml);
      assert.match(res.body.error ?? '', /line \d+, column \d+/, xml);
    }
  });

  test('over the size limit: 413', async () => {
    const lexeme = '<lexeme><grapheme>word</grapheme><alias>a very long alias text that repeats</alias></lexeme>\n';
    const xml = pls(lexeme.repeat(Math.ceil(LEXICON_LIMITS.plsBytes / lexeme.length) + 10));
    const res = await putPls('huge', xml);
    assert.equal(res.status, 413);
    assert.equal(res.body.code, 'payload_too_large');
  });

  test('another content type is 415', async () => {
    const res = await call('/api/lexicons/x/pls', {
      method: 'PUT',
      body: 'hello',
      headers: { 'content-type': 'text/plain' },
      bearer: alice.key,
    });
    assert.equal(res.status, 415);
  });
});

describe('lexicons: through the client SDK', () => {
  test('create, import PLS, make default, phonemize, delete; errors as VoxsmithError', async () => {
    const client = new VoxsmithClient({ baseUrl: s.base, apiKey: alice.key });
    const made = await client.createLexicon('sdk', [{ grapheme: 'ASAP', alias: 'as soon as possible' }]);
    assert.equal(made.name, 'sdk');
    const imported = await client.importPls('sdk-pls', pls('<lexeme><grapheme>GIF</grapheme><alias>jif</alias></lexeme>'));
    assert.deepEqual(imported.rules, [{ grapheme: 'GIF', alias: 'jif' }]);
    assert.equal((await client.updateLexicon('sdk', { default: true })).default, true);
    assert.deepEqual((await client.replaceLexicon('sdk', [{ grapheme: 'ASAP', alias: 'right now' }])).rules, [
      { grapheme: 'ASAP', alias: 'right now' },
    ]);
    assert.deepEqual((await client.getLexicon('sdk')).rules.length, 1);
    assert.ok((await client.listLexicons()).some((l) => l.name === 'sdk-pls' && l.rule_count === 1));
    const seen = await client.phonemize({ text: 'ASAP please' });
    assert.deepEqual(
      seen.words.map((w) => w.word),
      ['right', 'now', 'please'],
    );
    await client.deleteLexicon('sdk');
    await client.deleteLexicon('sdk-pls');
    await assert.rejects(
      client.getLexicon('sdk'),
      (err: unknown) => err instanceof VoxsmithError && err.status === 404 && err.code === 'lexicon_not_found',
    );
  });
});
