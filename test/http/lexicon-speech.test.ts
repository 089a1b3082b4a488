// Lexicons change what is spoken, through the real server: the audio's length follows an alias, on every door,
// with the account default applied when a request names none, and only the caller's own lexicons usable.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useService } from '../helpers/fixture.ts';

let alice: { key: string; cookie: string };
let bob: { key: string; cookie: string };
const s = useService({}, async () => {
  alice = await s.newKey('alice-ls@example.com');
  bob = await s.newKey('bob-ls@example.com');
  const created = await s.request('/api/lexicons', {
    bearer: alice.key,
    json: {
      name: 'acronyms',
      rules: [
        { grapheme: 'WHO', alias: 'World Health Organization' },
        // Five syllables for two letters: only a phoneme rule the engine speaks makes it this long.
        { grapheme: 'Bo', phoneme: 'bəʊbəʊbəʊbəʊbəʊ' },
      ],
    },
  });
  assert.equal(created.status, 201);
});

/** Seconds of 24 kHz 16-bit mono PCM that /v1/speak returns. */
async function seconds(json: Record<string, unknown>, bearer = alice.key): Promise<number> {
  const res = await s.request('/v1/speak', { bearer, json: { format: 'pcm', ...json } });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.arrayBuffer()).byteLength / 2 / 24_000;
}

describe('lexicons applied to speech', () => {
  test('an alias makes "WHO" about as long as "World Health Organization" (default flite voice)', async () => {
    // A rule matches whatever the case: "who" in lower case is one short word without the lexicon ("WHO" would be
    // spelled by the normalizer), so the alias's length shows.
    const plain = await seconds({ text: 'The who met.' });
    const aliased = await seconds({ text: 'The who met.', lexicons: ['acronyms'] });
    const written = await seconds({ text: 'The World Health Organization met.' });
    assert.ok(aliased > plain * 1.5, `with the lexicon ${aliased} s, without ${plain} s`);
    assert.ok(Math.abs(aliased - written) < 0.15 * written, `aliased ${aliased} s vs written out ${written} s`);
  });

  test('a phoneme rule is spoken by an espeak voice', async () => {
    const voice_id = 'espeak-en-us-female-1';
    const plain = await seconds({ text: 'Bo', voice_id, lexicons: [] });
    const ruled = await seconds({ text: 'Bo', voice_id, lexicons: ['acronyms'] });
    assert.ok(ruled > plain * 2, `with the phoneme rule ${ruled} s, without ${plain} s`);
  });

  test('the account default applies when a request names no lexicon; [] opts out', async () => {
    const before = await seconds({ text: 'who' });
    const made = await s.request('/api/lexicons/acronyms', { method: 'PATCH', bearer: alice.key, json: { default: true } });
    assert.equal(made.status, 200);
    const byDefault = await seconds({ text: 'who' });
    const optOut = await seconds({ text: 'who', lexicons: [] });
    assert.ok(byDefault > before * 2, `default ${byDefault} s, before ${before} s`);
    assert.ok(Math.abs(optOut - before) < 0.05, `opted out ${optOut} s, before ${before} s`);
    await s.request('/api/lexicons/acronyms', { method: 'PATCH', bearer: alice.key, json: { default: false } });
  });

  test('the OpenAI-compatible door takes lexicons too', async () => {
    const speech = async (extra: Record<string, unknown>) => {
      const res = await s.request('/v1/audio/speech', {
        bearer: alice.key,
        json: { model: 'tts-1', voice: 'alloy', input: 'who', response_format: 'pcm', ...extra },
      });
      assert.equal(res.status, 200);
      return (await res.arrayBuffer()).byteLength / 48_000;
    };
    const plain = await speech({});
    const ruled = await speech({ lexicons: ['acronyms'] });
    assert.ok(ruled > plain * 2, `${ruled} s vs ${plain} s`);
  });

  test("another account's lexicon, or an unknown one, is 404 naming it; nothing is spoken", async () => {
    for (const bearer of [bob.key, alice.key]) {
      const name = bearer === bob.key ? 'acronyms' : 'missing';
      const res = await s.request('/v1/speak', { bearer, json: { text: 'WHO', lexicons: [name] } });
      assert.equal(res.status, 404);
      const body = (await res.json()) as { code: string; error: string };
      assert.equal(body.code, 'lexicon_not_found');
      assert.match(body.error, new RegExp(`"${name}"`));
    }
  });
});
