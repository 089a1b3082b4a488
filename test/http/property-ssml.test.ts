// Property-based test: random SSML from the supported subset (valid and invalid values, unknown
// elements and attributes, entities, truncated documents) and random Unicode text, through the real server:
// never a 5xx, never a hang; audio is whole 16-bit PCM; word timings are monotonic and inside the audio.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { SpeechWithTimestamps } from '../../src/schemas/timestamps.ts';
import { useService } from '../helpers/fixture.ts';
import { assertClean, assertHealthy, PROPERTY_ENV } from '../helpers/property.ts';

/** Generous: a hang fails through this abort; speed is not asserted (2 shared cores). */
const TIMEOUT_MS = 60_000;
/** Fixed by default so CI is reproducible; set VOXSMITH_PROPERTY_SEED to replay or explore. */
const SEED = Number(process.env.VOXSMITH_PROPERTY_SEED ?? 1515);
const RUNS = 40;

const s = useService({ env: PROPERTY_ENV, user: 'property-ssml@example.com' });

/** Answers per test and status, so a generator that only ever produces 400s fails instead of testing nothing. */
const seen = new Map<string, number>();
let current = '';

async function speak(path: string, body: Record<string, unknown>): Promise<{ status: number; bytes: Buffer; text: string }> {
  const res = await fetch(`${s.base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ format: 'pcm', ...body }),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const k = `${current} ${res.status}`;
  seen.set(k, (seen.get(k) ?? 0) + 1);
  return { status: res.status, bytes, text: bytes.toString('utf8') };
}

// --- A small SSML grammar -------------------------------------------------------------------------------------

const words = fc.constantFrom(
  'hello',
  'world',
  'one',
  'two',
  '42',
  '3/15',
  '$5.20',
  'café',
  'naïve',
  'Zürich',
  'ok',
  'WHO',
  '-7',
  '2026-11-23',
);
const entity = fc.constantFrom(
  '&amp;',
  '&lt;',
  '&gt;',
  '&quot;',
  '&apos;',
  '&#233;',
  '&#x1F600;',
  '&#0;',
  '&#xD800;',
  '&bogus;',
  '&',
  '&#99999999;',
);
const oddChars = fc.string({ unit: 'grapheme', maxLength: 6 }).map((t) => t.replace(/[<&]/g, ' '));
const textContent = fc
  .array(fc.oneof({ weight: 6, arbitrary: words }, { weight: 1, arbitrary: entity }, { weight: 1, arbitrary: oddChars }), {
    minLength: 0,
    maxLength: 5,
  })
  .map((parts) => parts.join(' '));

/** Object.prototype's own names ("constructor", "toString", "__proto__", ...): looked up in a plain object, they are found. */
const protoName = fc.constantFrom(...Object.getOwnPropertyNames(Object.prototype));
/** A value of the grammar, now and then replaced by a prototype name. */
const orProto = (value: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof({ weight: 6, arbitrary: value }, { weight: 1, arbitrary: protoName });

const attrValue = fc.oneof(
  fc.constantFrom('', ' ', '"', "'", '-1', 'NaN', '1e309', '∞'),
  fc.string({ maxLength: 8 }).map((t) => t.replace(/["<&]/g, 'x')),
);
const breakTime = fc.oneof(
  fc.constantFrom('0s', '1s', '250ms', '10s', '11s', '10000ms', '1.5s', '-1s', 'x', '1h', '', '999999999999s', '1e3ms'),
  fc.nat(12_000).map((n) => `${n}ms`),
);
const strength = orProto(fc.constantFrom('none', 'x-weak', 'weak', 'medium', 'strong', 'x-strong', 'loud', ''));
const rate = orProto(
  fc.constantFrom(
    'x-slow',
    'slow',
    'medium',
    'fast',
    'x-fast',
    'default',
    '50%',
    '200%',
    '+20%',
    '-50%',
    '0%',
    '1000%',
    '1.5',
    '0',
    '-3',
    'fastest',
    '',
  ),
);
const pitch = orProto(
  fc.constantFrom(
    'x-low',
    'low',
    'medium',
    'high',
    'x-high',
    'default',
    '+2st',
    '-12st',
    '+50%',
    '-100%',
    '200Hz',
    '+10Hz',
    '-500Hz',
    '0Hz',
    'abc',
    '',
  ),
);
const volume = orProto(
  fc.constantFrom('silent', 'x-soft', 'soft', 'medium', 'loud', 'x-loud', 'default', '+6dB', '-6dB', '-100dB', '+100dB', '50%', 'dB', ''),
);
const interpretAs = orProto(
  fc.constantFrom('characters', 'spell-out', 'cardinal', 'ordinal', 'digits', 'date', 'time', 'telephone', 'unit', 'bogus', ''),
);
const emphasisLevel = orProto(fc.constantFrom('strong', 'moderate', 'none', 'reduced', 'loud', ''));
const dateFormat = fc.constantFrom('mdy', 'dmy', 'ymd', 'md', 'dm', 'ym', 'my', 'y', 'm', 'd', 'zzz', '');
const sayAsContent = fc.oneof(
  fc.constantFrom(
    '12',
    '-3',
    '1,000,000',
    '3/15/2026',
    '2026-11-23',
    '12:30',
    '7pm',
    '+1 (555) 010-9999',
    'abc',
    '',
    '99999999999999999999999',
    '1.5',
  ),
  fc.string({ maxLength: 10 }).map((t) => t.replace(/[<&]/g, ' ')),
);
const phAlphabet = orProto(fc.constantFrom('ipa', 'x-sampa', 'arpabet', ''));
const ph = fc.oneof(
  fc.constantFrom('həˈloʊ', 'h@"loU', 'tə.ˈmɑː.toʊ', '', '"', '{}'),
  fc.string({ maxLength: 10 }).map((t) => t.replace(/["<&]/g, ' ')),
);
const lang = fc.constantFrom('en-US', 'en-GB', 'de-DE', 'fr', 'xx-YY', '', 'en_US');
const voiceName = fc.constantFrom('default', 'espeak-en-us-female-1', 'espeak-en-us-male-1', 'nobody-here', '', '../etc');
const markName = fc.oneof(
  fc.constantFrom('m1', 'end', '', ' '),
  fc.string({ maxLength: 6 }).map((t) => t.replace(/["<&]/g, '_')),
);
const unknownName = orProto(fc.constantFrom('audio', 'foo', 'xml:lang', 'w', 'amazon:effect', 'voice2', 'b'));

const attr = (name: string, value: fc.Arbitrary<string>): fc.Arbitrary<string> => value.map((v) => ` ${name}="${v}"`);
/** An unknown attribute now and then, so their listing in the 400 is exercised. */
const maybeUnknownAttr = fc.oneof(
  { weight: 8, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.tuple(unknownName, attrValue).map(([n, v]) => ` ${n}="${v}"`) },
);

const { node } = fc.letrec<{ node: string; children: string }>((tie) => ({
  children: fc.array(tie('node'), { maxLength: 3 }).map((xs) => xs.join('')),
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    textContent,
    textContent,
    fc
      .tuple(fc.option(attr('time', breakTime), { nil: '' }), fc.option(attr('strength', strength), { nil: '' }), maybeUnknownAttr)
      .map(([a, b, c]) => `<break${a}${b}${c}/>`),
    fc.tuple(fc.constantFrom('p', 's'), maybeUnknownAttr, tie('children')).map(([el, u, c]) => `<${el}${u}>${c}</${el}>`),
    fc
      .tuple(fc.option(attr('level', emphasisLevel), { nil: '' }), maybeUnknownAttr, tie('children'))
      .map(([l, u, c]) => `<emphasis${l}${u}>${c}</emphasis>`),
    fc
      .tuple(
        fc.option(attr('rate', rate), { nil: '' }),
        fc.option(attr('pitch', pitch), { nil: '' }),
        fc.option(attr('volume', volume), { nil: '' }),
        maybeUnknownAttr,
        tie('children'),
      )
      .map(([r, p, v, u, c]) => `<prosody${r}${p}${v}${u}>${c}</prosody>`),
    fc
      .tuple(interpretAs, fc.option(attr('format', dateFormat), { nil: '' }), sayAsContent)
      .map(([i, f, c]) => `<say-as interpret-as="${i}"${f}>${c}</say-as>`),
    fc.tuple(attrValue, words).map(([alias, w]) => `<sub alias="${alias}">${w}</sub>`),
    fc.tuple(phAlphabet, ph, words).map(([a, p, w]) => `<phoneme alphabet="${a}" ph="${p}">${w}</phoneme>`),
    fc.tuple(lang, tie('children')).map(([l, c]) => `<lang xml:lang="${l}">${c}</lang>`),
    fc.tuple(voiceName, tie('children')).map(([v, c]) => `<voice name="${v}">${c}</voice>`),
    markName.map((m) => `<mark name="${m}"/>`),
  ),
}));

/** Whole documents, sometimes cut short (malformed XML) or without the root; kept small. */
const unknownElement = fc.tuple(unknownName, textContent).map(([el, c]) => `<${el}>${c}</${el}>`);
const ssmlDoc = fc
  .tuple(
    fc.array(fc.oneof({ weight: 12, arbitrary: node }, { weight: 1, arbitrary: unknownElement }), { maxLength: 4 }),
    fc.boolean(),
    fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.nat(200) }),
  )
  .map(([nodes, root, cut]) => {
    const doc = root ? `<speak>${nodes.join('')}</speak>` : nodes.join('');
    return cut === undefined ? doc : doc.slice(0, cut);
  })
  .filter((doc) => doc.length <= 600);

/** Where a prototype name can go: each element's looked-up attribute values, element names, attribute names. */
const protoPlacement = fc
  .tuple(
    protoName,
    fc.constantFrom(
      (n: string) => `<say-as interpret-as="${n}">12</say-as>`,
      (n: string) => `<break strength="${n}"/>`,
      (n: string) => `<emphasis level="${n}">a</emphasis>`,
      (n: string) => `<prosody rate="${n}">a</prosody>`,
      (n: string) => `<prosody pitch="${n}">a</prosody>`,
      (n: string) => `<prosody volume="${n}">a</prosody>`,
      (n: string) => `<phoneme alphabet="${n}" ph="a">a</phoneme>`,
      (n: string) => `<${n}>a</${n}>`,
      (n: string) => `<${n}/>`,
      (n: string) => `<p ${n}="1">a</p>`,
      (n: string) => `<break ${n}="1s"/>`,
    ),
  )
  .map(([name, place]) => place(name));
/** A document of the grammar with one prototype name somewhere in it. */
const protoDoc = fc
  .tuple(fc.array(node, { maxLength: 2 }), protoPlacement, fc.array(node, { maxLength: 2 }))
  .map(([before, proto, after]) => `<speak>${before.join('')}${proto}${after.join('')}</speak>`);

/** Random Unicode: graphemes (emoji, combining marks, RTL), ASCII controls, any code point, markup characters. */
const unicodeText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.string({ unit: 'binary-ascii', maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc
    .array(
      fc.constantFrom(
        '<',
        '&',
        '>',
        '\u202e',
        '\u200f',
        'שלום',
        'مرحبا',
        '👩‍👩‍👧',
        '\u0000',
        '\u0007',
        '\ufeff',
        '\ud800',
        ' ',
        '<speak>',
        '<break time="1s"/>',
        'a',
      ),
      { maxLength: 20 },
    )
    .map((xs) => xs.join('')),
);

// --- The checks --------------------------------------------------------------------------------------------

/** Both outcomes must occur: some documents are spoken, some refused. */
function assertBothOutcomes(name: string): void {
  const ok = seen.get(`${name} 200`) ?? 0;
  const refused = [...seen].filter(([k]) => k.startsWith(`${name} 4`)).reduce((n, [, v]) => n + v, 0);
  process.stdout.write(`# ${name}: ${ok} spoken, ${refused} refused\n`);
  assert.ok(ok >= RUNS / 8, `${name}: only ${ok} of ${RUNS} answered 200`);
  assert.ok(refused >= 1, `${name}: nothing was refused`);
}

function assertSpeak(res: { status: number; bytes: Buffer; text: string }, what: string): void {
  assertClean(res, what);
  if (res.status >= 400) {
    const body = JSON.parse(res.text) as { error: string; code: string };
    assert.ok(body.error.length > 0 && body.code.length > 0, `${what}: empty error envelope`);
    return;
  }
  assert.equal(res.status, 200, `${what}: ${res.status}`);
  // Whole 16-bit samples; an empty body is allowed only when nothing was speakable.
  assert.equal(res.bytes.length % 2, 0, `${what}: odd PCM byte count ${res.bytes.length}`);
}

function assertTimestamps(res: { status: number; bytes: Buffer; text: string }, what: string): void {
  assertClean(res, what);
  if (res.status >= 400) return;
  const out = JSON.parse(res.text) as SpeechWithTimestamps;
  const audio = Buffer.from(out.audio, 'base64');
  assert.equal(audio.length % 2, 0, `${what}: odd PCM byte count`);
  assert.ok(Number.isFinite(out.duration) && out.duration >= 0, `${what}: duration ${out.duration}`);
  let last = -Infinity;
  for (const w of out.words) {
    assert.ok(w.start >= last - 1e-9, `${what}: word "${w.word}" starts at ${w.start} before ${last}`);
    assert.ok(w.end >= w.start - 1e-9, `${what}: word "${w.word}" ends before it starts`);
    last = w.start;
  }
  const lastEnd = out.words.at(-1)?.end ?? 0;
  assert.ok(lastEnd <= out.duration + 0.05, `${what}: last word ends at ${lastEnd} > ${out.duration}`);
  for (const m of out.marks) assert.ok(m.time >= 0 && m.time <= out.duration + 0.05, `${what}: mark ${m.name} at ${m.time}`);
}

const label = (body: Record<string, unknown>): string => `seed ${SEED} (VOXSMITH_PROPERTY_SEED): ${JSON.stringify(body).slice(0, 400)}`;

describe('property: SSML and Unicode text', () => {
  test('random SSML documents to /v1/speak: no 5xx, no hang, whole PCM', async () => {
    current = 'ssml';
    await fc.assert(
      fc.asyncProperty(ssmlDoc, fc.boolean(), async (doc, typed) => {
        // Without text_type the document is SSML only when it starts with <speak> (or carries a lone <break/>).
        const body = typed ? { text: doc, text_type: 'ssml' } : { text: doc };
        assertSpeak(await speak('/v1/speak', body), label(body));
      }),
      { numRuns: RUNS, seed: SEED },
    );
    assertBothOutcomes('ssml');
  });

  test('random SSML documents to /v1/speak/with-timestamps: monotonic words inside the audio', async () => {
    current = 'timestamps';
    await fc.assert(
      fc.asyncProperty(ssmlDoc, async (doc) => {
        const body = { text: doc, text_type: 'ssml' };
        assertTimestamps(await speak('/v1/speak/with-timestamps', body), label(body));
      }),
      { numRuns: RUNS, seed: SEED + 1 },
    );
    assertBothOutcomes('timestamps');
  });

  test('a prototype name anywhere in a document: always 400 ssml_invalid, on every SSML door', async () => {
    current = 'prototype';
    await fc.assert(
      fc.asyncProperty(protoDoc, fc.constantFrom('/v1/speak', '/v1/speak/with-timestamps'), async (doc, path) => {
        const body = { text: doc };
        const res = await speak(path, body);
        assert.equal(res.status, 400, `${label(body)}: ${res.status} ${res.text.slice(0, 200)}`);
        assert.equal((JSON.parse(res.text) as { code: string }).code, 'ssml_invalid', label(body));
      }),
      { numRuns: RUNS, seed: SEED + 3 },
    );
  });

  test('random Unicode text, as plain text and as SSML: no 5xx, no hang', async () => {
    current = 'unicode';
    await fc.assert(
      fc.asyncProperty(unicodeText, fc.constantFrom('text', 'ssml', undefined), fc.boolean(), async (text, textType, timed) => {
        const body: Record<string, unknown> = textType === undefined ? { text } : { text, text_type: textType };
        if (timed) assertTimestamps(await speak('/v1/speak/with-timestamps', body), label(body));
        else assertSpeak(await speak('/v1/speak', body), label(body));
      }),
      { numRuns: RUNS, seed: SEED + 2 },
    );
  });

  test('the server is healthy afterwards', async () => {
    await assertHealthy(s, s.key);
  });
});
