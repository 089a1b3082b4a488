// SSML and timings through the real server: /v1/speak/with-timestamps (+ /stream), decoded and measured.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { measurePitch } from '../../src/audio/analysis.ts';
import type { SpeechWithTimestamps, SpeechTimestampsEvent } from '../../src/schemas/timestamps.ts';
import { useService } from '../helpers/fixture.ts';
import { timedSpeech } from '../helpers/timed-speech.ts';

const s = useService({ user: 'ssml@example.com' });

const RATE = 24000;

const timed = (body: Record<string, unknown>) => timedSpeech(s, s.key, body);

async function refused(body: Record<string, unknown>): Promise<{ error: string; code: string }> {
  const res = await s.call('/v1/speak/with-timestamps', { json: { format: 'pcm', ...body } });
  const text = await res.text();
  assert.equal(res.status, 400, text);
  return JSON.parse(text) as { error: string; code: string };
}

/** 10 ms frames: true where the frame's RMS is below `floor`. */
function quietFrames(x: Float32Array, floor = 0.003): boolean[] {
  const frame = RATE / 100;
  const out: boolean[] = [];
  for (let i = 0; i + frame <= x.length; i += frame) {
    let sum = 0;
    for (let j = i; j < i + frame; j++) sum += x[j] * x[j];
    out.push(Math.sqrt(sum / frame) < floor);
  }
  return out;
}

/** Runs of quiet frames as [startSeconds, endSeconds], longest first. */
function silences(x: Float32Array, minSeconds: number): [number, number][] {
  const q = quietFrames(x);
  const out: [number, number][] = [];
  let run = -1;
  for (let i = 0; i <= q.length; i++) {
    if (i < q.length && q[i]) {
      if (run < 0) run = i;
    } else if (run >= 0) {
      if ((i - run) / 100 >= minSeconds) out.push([run / 100, i / 100]);
      run = -1;
    }
  }
  return out.sort((a, b) => b[1] - b[0] - (a[1] - a[0]));
}

function checkWords(out: Timed, source: string): void {
  const total = out.samples.length / RATE;
  let prev = 0;
  for (const w of out.words) {
    assert.ok(w.start >= prev - 1e-9 && w.end >= w.start && w.end <= total + 1e-3, `${JSON.stringify(w)} after ${prev}, total ${total}`);
    assert.equal(source.slice(w.offset, w.offset + w.length), w.word);
    prev = w.start;
  }
}
type Timed = SpeechWithTimestamps & { samples: Float32Array };

describe('SSML', () => {
  test('<break time="1s"/> is at least 0.95 s of near-silence where the timings put it', async () => {
    const text = '<speak>The first part is here. <break time="1s"/> And the second part follows.</speak>';
    const out: Timed = await timed({ text, voice_id: 'flite-slt' });
    checkWords(out, text);
    const [gap] = silences(out.samples, 0.5);
    assert.ok(gap, 'a silence');
    assert.ok(gap[1] - gap[0] >= 0.95, `silence ${gap[1] - gap[0]} s`);
    // Predicted: between the end of "here." and the start of "And".
    const here = out.words.find((w) => w.word === 'here.' || w.word === 'here')!;
    const and = out.words.find((w) => w.word === 'And')!;
    assert.ok(Math.abs(gap[0] - here.end) < 0.12 && Math.abs(gap[1] - and.start) < 0.12, `gap ${gap}, here ${here.end}, And ${and.start}`);
    // Plain text may carry a break alone (as ElevenLabs allows).
    const plain: Timed = await timed({ text: 'One two three. <break time="1.5s"/> Four five six.', voice_id: 'flite-slt' });
    const [g2] = silences(plain.samples, 0.5);
    assert.ok(g2 && g2[1] - g2[0] >= 1.4, `plain break ${g2}`);
    assert.deepEqual(
      plain.words.map((w) => w.word.replace(/\W/g, '')),
      ['One', 'two', 'three', 'Four', 'five', 'six'],
    );
  });

  test('prosody rate="50%" about doubles that part; volume changes its level', async () => {
    const part = 'seven eight nine ten eleven twelve';
    const normal: Timed = await timed({ text: `<speak>${part}</speak>`, voice_id: 'flite-slt' });
    const slow: Timed = await timed({ text: `<speak><prosody rate="50%">${part}</prosody></speak>`, voice_id: 'flite-slt' });
    const ratio = slow.samples.length / normal.samples.length;
    assert.ok(ratio > 1.7 && ratio < 2.3, `ratio ${ratio}`);
    const loud: Timed = await timed({ text: `<speak><prosody volume="-12dB">${part}</prosody></speak>`, voice_id: 'flite-slt' });
    const level = (x: Float32Array): number => Math.sqrt(x.reduce((a, v) => a + v * v, 0) / x.length);
    const db = 20 * Math.log10(level(loud.samples) / level(normal.samples));
    assert.ok(db < -9 && db > -15, `${db} dB`);
  });

  test('say-as characters spells: a word per letter, longer audio', async () => {
    const text = '<speak>Code <say-as interpret-as="characters">XJQ</say-as> now.</speak>';
    const out: Timed = await timed({ text, voice_id: 'flite-slt' });
    checkWords(out, text);
    assert.deepEqual(
      out.words.map((w) => w.word.replace(/\W/g, '')),
      ['Code', 'X', 'J', 'Q', 'now'],
    );
    const plain: Timed = await timed({ text: '<speak>Code XJQ now.</speak>', voice_id: 'flite-slt' });
    assert.ok(out.samples.length > plain.samples.length, 'spelled is longer');
  });

  test('sub, say-as date/cardinal and a "$5.20" keep spans in the request text', async () => {
    const text =
      '<speak>The <sub alias="World Wide Web">WWW</sub> costs $5.20 on <say-as interpret-as="date" format="mdy">12/25/2025</say-as>.</speak>';
    const out: Timed = await timed({ text, voice_id: 'flite-slt' });
    checkWords(out, text);
    const words = out.words.map((w) => w.word);
    assert.ok(words.includes('WWW') && words.includes('$5.20') && words.includes('12/25/2025'), words.join('|'));
    const date = out.words.find((w) => w.word === '12/25/2025')!;
    assert.ok(date.end - date.start > 1, `the date is read in full: ${JSON.stringify(date)}`);
  });

  test('<voice> switches mid-request: the pitch changes measurably', async () => {
    const text =
      '<speak>This is the first voice speaking now. <voice name="flite-awb">And this is the second voice speaking.</voice></speak>';
    const out: Timed = await timed({ text, voice_id: 'flite-slt' });
    checkWords(out, text);
    const and = out.words.find((w) => w.word === 'And')!;
    const cut = Math.round(and.start * RATE);
    const first = measurePitch(out.samples.subarray(0, cut), RATE).medianHz;
    const second = measurePitch(out.samples.subarray(cut), RATE).medianHz;
    assert.ok(first > 140 && second < first * 0.85, `slt ${first} Hz, awb ${second} Hz`);
    // An unknown voice is a 404 like voice_id.
    const res = await s.call('/v1/speak/with-timestamps', {
      json: { text: '<speak><voice name="nope">x</voice></speak>' },
    });
    assert.equal(res.status, 404);
  });

  test('prosody pitch raises the pitch on flite', async () => {
    const part = 'The pitch of this sentence is measured.';
    const normal: Timed = await timed({ text: `<speak>${part}</speak>`, voice_id: 'flite-slt' });
    const high: Timed = await timed({ text: `<speak><prosody pitch="+4st">${part}</prosody></speak>`, voice_id: 'flite-slt' });
    const a = measurePitch(normal.samples, RATE).medianHz;
    const b = measurePitch(high.samples, RATE).medianHz;
    const st = 12 * Math.log2(b / a);
    assert.ok(st > 2.5 && st < 5.5, `${st} semitones (${a} -> ${b} Hz)`);
  });

  test('marks come back in order with times inside the audio', async () => {
    const text =
      '<speak><mark name="a"/>One two three. <mark name="b"/>Four five six. <break time="500ms"/><mark name="c"/>Seven.<mark name="end"/></speak>';
    const out: Timed = await timed({ text, voice_id: 'flite-slt' });
    const total = out.samples.length / RATE;
    assert.deepEqual(
      out.marks.map((m) => m.name),
      ['a', 'b', 'c', 'end'],
    );
    for (let i = 0; i < out.marks.length; i++) {
      assert.ok(out.marks[i].time >= 0 && out.marks[i].time <= total + 1e-3, JSON.stringify(out.marks[i]));
      if (i > 0) assert.ok(out.marks[i].time > out.marks[i - 1].time, JSON.stringify(out.marks));
    }
    const four = out.words.find((w) => w.word === 'Four')!;
    assert.ok(
      Math.abs(out.marks[1].time - four.start) < 0.4 && out.marks[1].time <= four.start + 0.01,
      `${out.marks[1].time} vs ${four.start}`,
    );
    const seven = out.words.find((w) => w.word.startsWith('Seven'))!;
    assert.ok(out.marks[2].time <= seven.start + 0.01 && out.marks[2].time > out.words.find((w) => w.word.startsWith('six'))!.end + 0.45);
  });

  test('phoneme: espeak speaks the IPA; flite says the written word', async () => {
    const ipa: Timed = await timed({
      text: '<speak><phoneme alphabet="ipa" ph="ˈbʌtəfˌlaɪ">word</phoneme></speak>',
      voice_id: 'espeak-en-us-female-1',
    });
    const word: Timed = await timed({ text: '<speak>word</speak>', voice_id: 'espeak-en-us-female-1' });
    const butterfly: Timed = await timed({ text: '<speak>butterfly</speak>', voice_id: 'espeak-en-us-female-1' });
    const len = (t: Timed): number => t.samples.length / RATE;
    assert.ok(
      Math.abs(len(ipa) - len(butterfly)) < Math.abs(len(ipa) - len(word)),
      `ipa ${len(ipa)}, butterfly ${len(butterfly)}, word ${len(word)}`,
    );
    const xs: Timed = await timed({
      text: '<speak><phoneme alphabet="x-sampa" ph="&quot;bVt@flaI">word</phoneme></speak>',
      voice_id: 'espeak-en-us-female-1',
    });
    assert.ok(Math.abs(len(xs) - len(butterfly)) < 0.15, `x-sampa ${len(xs)} vs ${len(butterfly)}`);
    assert.equal(ipa.words.length, 1);
    assert.equal(ipa.words[0].word, 'word');
  });

  test('malformed markup: 400 naming line, column and element; unknown attributes listed', async () => {
    const a = await refused({ text: '<speak>\n  <prosody rate="slow">hi</speak>' });
    assert.equal(a.code, 'ssml_invalid');
    assert.match(a.error, /line 2, column \d+/);
    assert.match(a.error, /element <(prosody|speak)>/);
    const b = await refused({ text: '<speak>\n\n   <prosody rate="slow" loudness="3" contour="x">hi</prosody></speak>' });
    assert.match(b.error, /line 3, column 4, element <prosody>: unknown attributes "loudness", "contour"/);
    const c = await refused({ text: '<speak><audio src="x.wav"/></speak>' });
    assert.match(c.error, /line 1, column 8, element <audio>: unsupported element/);
    const d = await refused({ text: '<speak><break time="11s"/></speak>' });
    assert.match(d.error, /element <break>: time/);
    const e = await refused({ text: 'hi', text_type: 'ssml' });
    assert.equal(e.code, 'ssml_invalid');
    const f = await refused({ text: '<speak>a &nbsp; b</speak>' });
    assert.match(f.error, /entity/);
  });

  test('limits count the spoken text; markup has its own limit', async () => {
    const res = await s.call('/v1/speak', { json: { text: `<speak>${'<break time="10ms"/>'.repeat(3000)}</speak>` } });
    assert.ok(res.status === 413 || res.status === 400, String(res.status));
  });

  test('the NDJSON stream carries the same words and marks, and its audio parts form the file', async () => {
    const text = '<speak>Hello there. <mark name="m"/>How are you today?</speak>';
    const whole: Timed = await timed({ text, voice_id: 'flite-slt' });
    const res = await s.call('/v1/speak/with-timestamps/stream', { json: { text, voice_id: 'flite-slt', format: 'pcm' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /application\/x-ndjson/);
    const events = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as SpeechTimestampsEvent);
    const last = events[events.length - 1];
    assert.equal(last.type, 'done');
    const audio = events.flatMap((e) => (e.type === 'audio' ? [Buffer.from(e.audio, 'base64')] : []));
    assert.equal(Buffer.concat(audio).length, whole.samples.length * 2);
    const words = events.flatMap((e) => (e.type === 'audio' ? (e.words ?? []) : []));
    const marks = events.flatMap((e) => (e.type === 'audio' ? (e.marks ?? []) : []));
    assert.deepEqual(words, whole.words);
    assert.deepEqual(marks, whole.marks);
  });
});

describe('SSML documents as files write them', () => {
  test('an XML declaration, a byte-order mark or comments before <speak>: SSML on doors without text_type', async () => {
    const bodies = [
      '<?xml version="1.0" encoding="UTF-8"?>\n<speak version="1.1" xmlns="http://www.w3.org/2001/10/synthesis">Hello <break time="1s"/> there.</speak>',
      '\uFEFF<?xml version="1.0"?><!-- made by an editor --><speak>Hello <break time="1s"/> there.</speak>',
      '<!-- a comment --> <!-- two - dashes --> <speak>Hello <break time="1s"/> there.</speak>',
    ];
    for (const text of bodies) {
      const out = await timed({ text, voice_id: 'flite-slt' });
      // Spoken as SSML: the two words, the break as silence, nothing of the declaration or the tags read aloud.
      assert.deepEqual(
        out.words.map((w) => w.word),
        ['Hello', 'there'],
        text,
      );
      assert.ok(silences(out.samples, 0.9).length >= 1, `${text}: the break is silence`);
    }
    // The doors without a text_type field: OpenAI and ElevenLabs.
    const [doc] = bodies;
    const openai = await s.call('/v1/audio/speech', {
      json: { model: 'tts-1', voice: 'alloy', input: doc, response_format: 'pcm' },
    });
    assert.equal(openai.status, 200);
    const spoken = (await openai.arrayBuffer()).byteLength / 2 / RATE;
    const plain = await s.call('/v1/audio/speech', {
      json: { model: 'tts-1', voice: 'alloy', input: 'Hello there.', response_format: 'pcm' },
    });
    const plainSeconds = (await plain.arrayBuffer()).byteLength / 2 / RATE;
    assert.ok(
      spoken > plainSeconds + 0.8 && spoken < plainSeconds + 2,
      `${spoken} s against ${plainSeconds} s: the words and a 1 s break, not the markup read out`,
    );
    const elevenLabs = async (text: string): Promise<number> => {
      const res = await s.request('/v1/text-to-speech/flite-slt?output_format=pcm_24000', {
        json: { text },
        headers: { 'xi-api-key': s.key },
      });
      assert.equal(res.status, 200);
      return (await res.arrayBuffer()).byteLength / 2 / RATE;
    };
    const [elevenSeconds, elevenPlain] = [await elevenLabs(doc), await elevenLabs('Hello there.')];
    assert.ok(
      elevenSeconds > elevenPlain + 0.8 && elevenSeconds < elevenPlain + 2,
      `ElevenLabs: ${elevenSeconds} s against ${elevenPlain} s`,
    );
  });

  test('text that merely mentions <speak> later is still plain text', async () => {
    const out = await timed({ text: 'Type <speak> to start.', voice_id: 'flite-slt' });
    assert.ok(out.words.some((w) => w.word.includes('Type')));
  });
});
