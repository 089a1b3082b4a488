// POST /v1/phonemize through the real server: normalized text, phonemes per word, and what lexicons change.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PhonemizeResponse } from '../../src/schemas/phonemize.ts';
import { useService } from '../helpers/fixture.ts';

let alice: { key: string; cookie: string };
let bob: { key: string; cookie: string };
const s = useService({}, async () => {
  alice = await s.newKey('alice-ph@example.com');
  bob = await s.newKey('bob-ph@example.com');
  const created = await s.request('/api/lexicons', {
    bearer: alice.key,
    json: {
      name: 'acronyms',
      rules: [
        { grapheme: 'WHO', alias: 'World Health Organization' },
        { grapheme: 'tomato', phoneme: 't@"mA:t@U', alphabet: 'x-sampa' },
      ],
    },
  });
  assert.equal(created.status, 201);
});

async function phonemize(
  json: unknown,
  bearer = alice.key,
): Promise<{ status: number; body: PhonemizeResponse & { error?: string; code?: string } }> {
  const res = await s.request('/v1/phonemize', { bearer, json });
  return { status: res.status, body: (await res.json()) as PhonemizeResponse & { error?: string; code?: string } };
}

describe('/v1/phonemize', () => {
  test('the default voice (flite): normalized text and flite phones per word, offsets into the normalized text', async () => {
    const { status, body } = await phonemize({ text: 'Hello world, it costs $5.' });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.engine, 'flite');
    assert.equal(body.alphabet, 'arpabet');
    assert.match(body.normalized, /five dollars/i);
    assert.deepEqual(
      body.words.map((w) => w.word.toLowerCase()),
      ['hello', 'world', 'it', 'costs', 'five', 'dollars'],
    );
    for (const w of body.words) assert.equal(body.normalized.slice(w.offset, w.offset + w.length), w.word);
    assert.equal(body.words[0].phonemes, 'hh ax l ow');
    assert.equal(body.words[1].phonemes, 'w er l d');
    assert.equal(body.words[4].phonemes, 'f ay v');
  });

  test('an espeak voice: espeak-ng IPA per word', async () => {
    const { status, body } = await phonemize({ text: 'Hello world', voice_id: 'espeak-en-us-female-1' });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.engine, 'espeak');
    assert.equal(body.alphabet, 'ipa');
    assert.equal(body.words.length, 2);
    assert.match(body.words[0].phonemes, /h.*l.*o/);
    assert.match(body.words[1].phonemes, /w.*ɜː.*l.*d/);
  });

  test('a lexicon alias changes the words and their phonemes; a phoneme rule reports its phonemes', async () => {
    const plain = await phonemize({ text: 'The WHO likes a tomato.', voice_id: 'espeak-en-us-female-1', lexicons: [] });
    assert.equal(plain.status, 200);
    assert.ok(!plain.body.normalized.includes('Organization'));
    const withLexicon = await phonemize({ text: 'The WHO likes a tomato.', voice_id: 'espeak-en-us-female-1', lexicons: ['acronyms'] });
    assert.equal(withLexicon.status, 200, JSON.stringify(withLexicon.body));
    const { body } = withLexicon;
    assert.match(body.normalized, /World Health Organization/);
    const fromLexicon = body.words.filter((w) => w.lexicon);
    assert.deepEqual(
      fromLexicon.map((w) => w.word),
      ['World', 'Health', 'Organization', 'tomato'],
    );
    assert.match(fromLexicon[2].phonemes, /ɔːɹɡɐnᵻzˈeɪʃən|ɔːɹɡənᵻzˈeɪʃən/);
    assert.deepEqual(fromLexicon[3], {
      word: 'tomato',
      offset: body.normalized.lastIndexOf('tomato'),
      length: 6,
      phonemes: 't@"mA:t@U',
      alphabet: 'x-sampa',
      lexicon: true,
    });
    const plainPhones = plain.body.words.map((w) => w.phonemes).join(' ');
    assert.notEqual(body.words.map((w) => w.phonemes).join(' '), plainPhones);
  });

  test('flite says the written word for a phoneme rule and reports its own phones for it', async () => {
    const { status, body } = await phonemize({ text: 'tomato', lexicons: ['acronyms'] });
    assert.equal(status, 200);
    assert.equal(body.words.length, 1);
    assert.equal(body.words[0].alphabet, 'arpabet');
    assert.match(body.words[0].phonemes, /^t ax m ey t ow$/);
  });

  test('the default lexicon applies when none is named; [] opts out', async () => {
    // Without a lexicon the initialism is spelled (the normalizer decides capitals, not the engine).
    const before = await phonemize({ text: 'WHO' });
    assert.deepEqual(
      before.body.words.map((w) => w.word),
      ['W', 'H', 'O'],
    );
    const made = await s.request('/api/lexicons/acronyms', { method: 'PATCH', bearer: alice.key, json: { default: true } });
    assert.equal(made.status, 200);
    const withDefault = await phonemize({ text: 'WHO' });
    assert.deepEqual(
      withDefault.body.words.map((w) => w.word),
      ['World', 'Health', 'Organization'],
    );
    const optOut = await phonemize({ text: 'WHO', lexicons: [] });
    assert.equal(optOut.body.words.length, 3);
    await s.request('/api/lexicons/acronyms', { method: 'PATCH', bearer: alice.key, json: { default: false } });
  });

  test("an unknown lexicon, or another account's, is 404 naming it", async () => {
    const unknown = await phonemize({ text: 'WHO', lexicons: ['nope'] });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'lexicon_not_found');
    assert.match(unknown.body.error ?? '', /"nope"/);
    const other = await phonemize({ text: 'WHO', lexicons: ['acronyms'] }, bob.key);
    assert.equal(other.status, 404);
    assert.match(other.body.error ?? '', /"acronyms"/);
  });

  test('bad input: empty text, unknown voice, no key', async () => {
    assert.equal((await phonemize({ text: '  ' })).status, 400);
    assert.equal((await phonemize({ text: 'hi', voice_id: 'robot-9' })).status, 404);
    assert.equal((await phonemize({ text: 'hi', lexicons: ['bad name'] })).status, 400);
    const anonymous = await s.request('/v1/phonemize', { json: { text: 'hi' } });
    assert.equal(anonymous.status, 401);
  });
});
