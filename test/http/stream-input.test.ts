// Input streaming on /v1/ws/stream: text arrives word by word (as an LLM writes it), audio per sentence.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { measurePitch } from '../../src/audio/analysis.ts';
import { useService } from '../helpers/fixture.ts';
import { StreamClient, type StreamMsg } from '../helpers/ws-client.ts';

const MAX_TEXT = 400;
const MAX_CONTEXTS = 3;

const s = useService({ env: { MAX_TEXT_CHARS: String(MAX_TEXT) }, streamLimits: { maxContexts: MAX_CONTEXTS }, user: 'agent@example.com' });

const open = () => StreamClient.open(`${s.base.replace('http', 'ws')}/v1/ws/stream?token=${s.key}`);
const of = (contextId: string) => (m: StreamMsg) => m.context_id === contextId;
const doneOf = (contextId: string) => (m: StreamMsg) => m.type === 'done' && m.context_id === contextId;

/** "The cat sat." → ["The", " cat", " sat."]: pieces as a language model emits them, spaces leading. */
function tokens(text: string): string[] {
  return text.split(/(?=\s)/);
}

async function charactersUsed(): Promise<number> {
  const usage = (await (await s.request('/api/usage', { cookie: s.cookie })).json()) as { keys: Array<{ characters: number }> };
  return usage.keys.reduce((sum, k) => sum + k.characters, 0);
}

/** Audio of a whole text as one plain request on the same stream, for comparison. */
async function wholeSamples(c: StreamClient, text: string, voiceId: string, id: string): Promise<number> {
  c.send({ type: 'synthesize', text, voice_id: voiceId, id });
  const done = await c.until((m) => m.type === 'done' && m.id === id);
  return done.samples ?? 0;
}

describe('input streaming: one context, word by word', () => {
  // espeak reports word timings.
  const VOICE = 'espeak-en-us-female-1';
  test('the first sentence is heard before the last word is sent; flush speaks the rest; words and usage follow', async () => {
    const c = await open();
    const sentences = ['The first sentence is here.', 'The second one follows it closely.'];
    const rest = 'And then comes the rest, which has no ending';
    const words = tokens(`${sentences.join(' ')} ${rest}`);
    const usedBefore = await charactersUsed();
    // The first word after the first sentence completes it (the splitter needs to see what follows a period).
    const completing = tokens(sentences[0]).length;
    let sentAtFirstAudio = -1;
    for (let i = 0; i < words.length; i++) {
      c.send({ type: 'synthesize', context_id: 'c1', text: words[i], continue: true, voice_id: VOICE });
      if (i === completing) {
        await c.until((m) => m.type === 'audio' && m.context_id === 'c1');
        sentAtFirstAudio = i + 1;
      }
    }
    assert.ok(sentAtFirstAudio > 0 && sentAtFirstAudio < words.length, `first audio after ${sentAtFirstAudio} of ${words.length} words`);
    // Nothing speaks the unfinished rest until the flush: the done comes only after it.
    c.send({ type: 'flush', context_id: 'c1' });
    const done = await c.until(doneOf('c1'));
    const audio = c.samples(of('c1'));
    assert.equal(done.samples, audio.length);
    assert.ok(!done.cancelled);
    for (const v of audio) assert.ok(Number.isFinite(v) && Math.abs(v) <= 1.0001);

    // Compared with the same text spoken whole: the same speech (sentence pauses included), so the rest was spoken.
    const whole = await wholeSamples(c, `${sentences.join(' ')} ${rest}`, VOICE, 'whole');
    const ratio = audio.length / whole;
    assert.ok(ratio > 0.85 && ratio < 1.15, `streamed/whole audio ${ratio}`);
    const firstTwo = await wholeSamples(c, sentences.join(' '), VOICE, 'first-two');
    assert.ok(audio.length - firstTwo > 1.5 * 24_000, `the rest adds ${(audio.length - firstTwo) / 24_000} s`);

    // Word timings are on the utterance's timeline: in order, inside its audio, and every word is there.
    const timed = c.messages.filter((m) => m.type === 'audio' && m.context_id === 'c1').flatMap((m) => m.words ?? []);
    assert.equal(timed.length, words.length);
    for (let i = 1; i < timed.length; i++) assert.ok(timed[i].start >= timed[i - 1].start, `word ${i} in order`);
    assert.ok(timed[timed.length - 1].end <= audio.length / 24_000 + 0.01);
    // ... and their offsets point into the text as the pieces built it.
    const written = words.join('');
    for (const w of timed) assert.equal(written.slice(w.offset ?? -1, (w.offset ?? -1) + (w.length ?? 0)), w.word);
    // Every audio message of the context carries its id, and no other message does.
    assert.ok(c.messages.filter((m) => m.type === 'audio' && m.id === undefined).every((m) => m.context_id === 'c1'));

    // Usage: each sentence as it was delivered (the whole and first-two requests counted their own text).
    const spoken = sentences.join('').length + rest.length;
    const wholeChars = `${sentences.join(' ')} ${rest}`.length + sentences.join(' ').length;
    assert.equal((await charactersUsed()) - usedBefore, spoken + wholeChars);
    c.close();
  });

  test('continue: false ends the context; a later message with its id opens a new one', async () => {
    const c = await open();
    for (let round = 0; round < MAX_CONTEXTS + 2; round++) {
      const from = c.messages.length;
      c.send({ type: 'synthesize', context_id: 'turn', text: `Round ${round + 1}.` });
      const done = await c.until(doneOf('turn'), from);
      assert.ok((done.samples ?? 0) > 0.3 * 24_000, `round ${round + 1}: ${done.samples} samples`);
    }
    c.close();
  });

  test('a flush keeps the context open: the next piece is a new utterance on the same voice', async () => {
    const c = await open();
    c.send({ type: 'synthesize', context_id: 'k', text: 'First turn', continue: true, voice_id: 'espeak-en-us-male-1' });
    c.send({ type: 'flush', context_id: 'k' });
    const first = await c.until(doneOf('k'));
    const from = c.messages.length;
    c.send({ type: 'synthesize', context_id: 'k', text: 'Second turn.', continue: false });
    const second = await c.until(doneOf('k'), from);
    assert.ok((first.samples ?? 0) > 0 && (second.samples ?? 0) > 0);
    const secondAudio = c.samples((m) => m.context_id === 'k' && c.messages.indexOf(m) >= from);
    assert.equal(secondAudio.length, second.samples, 'done counts its own utterance');
    assert.ok(measurePitch(secondAudio, 24_000).medianHz < 150, 'still the male voice');
    // A flush of a context that is not open has nothing to say.
    c.send({ type: 'flush', context_id: 'never-opened' });
    const empty = await c.until(doneOf('never-opened'));
    assert.equal(empty.samples, 0);
    c.close();
  });
});

describe('input streaming: several contexts on one socket', () => {
  test('two interleaved contexts each get their own audio, told apart by context_id', async () => {
    const c = await open();
    const female = tokens('Hello, this is the first voice speaking. It says two short sentences.');
    const male = tokens('And here is another voice, a lower one. It talks a little longer than the first one does, to be told apart.');
    for (let i = 0; i < Math.max(female.length, male.length); i++) {
      if (i < female.length) c.send({ type: 'synthesize', context_id: 'f', text: female[i], continue: true, voice_id: 'flite-slt' });
      if (i < male.length) c.send({ type: 'synthesize', context_id: 'm', text: male[i], continue: true, voice_id: 'espeak-en-us-male-1' });
    }
    c.send({ type: 'flush', context_id: 'f' });
    c.send({ type: 'flush', context_id: 'm' });
    const [doneF, doneM] = [await c.until(doneOf('f')), await c.until(doneOf('m'))];
    const audioF = c.samples(of('f'));
    const audioM = c.samples(of('m'));
    assert.equal(doneF.samples, audioF.length);
    assert.equal(doneM.samples, audioM.length);
    const pitchF = measurePitch(audioF, 24_000).medianHz;
    const pitchM = measurePitch(audioM, 24_000).medianHz;
    assert.ok(pitchF > 150 && pitchM < 140, `female ${pitchF} Hz, male ${pitchM} Hz`);
    // 67 vs 106 characters.
    assert.ok(audioM.length > audioF.length * 1.1, `the longer text is longer: ${audioM.length} vs ${audioF.length}`);
    assert.ok(c.messages.filter((m) => m.type === 'audio').every((m) => m.context_id === 'f' || m.context_id === 'm'));
    c.close();
  });

  test('cancel drops a context: no audio of it after the acknowledgement, and the others go on', async () => {
    const c = await open();
    const long = Array.from({ length: 12 }, (_, i) => `This is sentence number ${i + 1} that nobody will hear.`).join(' ');
    for (const t of tokens(long))
      c.send({ type: 'synthesize', context_id: 'gone', text: t, continue: true, voice_id: 'espeak-en-us-male-1' });
    await c.until((m) => m.type === 'audio' && m.context_id === 'gone');
    c.send({ type: 'cancel', context_id: 'gone' });
    const ack = await c.until(doneOf('gone'));
    assert.equal(ack.cancelled, true);
    const ackAt = c.messages.indexOf(ack);
    const heard = c.samples(of('gone')).length;
    assert.equal(ack.samples, heard, 'the acknowledgement counts what was delivered');
    // Another context after it runs through the same queue: by its done, anything left of "gone" would have come.
    c.send({ type: 'synthesize', context_id: 'next', text: 'The next context speaks.' });
    await c.until(doneOf('next'));
    const late = c.messages.slice(ackAt + 1).filter((m) => m.context_id === 'gone');
    assert.deepEqual(late, [], 'nothing about the cancelled context after its acknowledgement');
    assert.ok(heard < 12 * 24_000, `stopped early: ${heard / 24_000} s heard`);
    // Cancelling again (or a context never opened) is acknowledged the same way.
    c.send({ type: 'cancel', context_id: 'gone' });
    const again = await c.until(doneOf('gone'), ackAt + 1);
    assert.equal(again.cancelled, true);
    assert.equal(again.samples, 0);
    c.close();
  });

  test('plain requests keep their shape and order beside contexts', async () => {
    const c = await open();
    c.send({ type: 'synthesize', text: 'A plain request.', id: 'plain' });
    c.send({ type: 'synthesize', context_id: 'ctx', text: 'A context.' });
    const plain = await c.until((m) => m.type === 'done' && m.id === 'plain');
    await c.until(doneOf('ctx'));
    assert.equal(plain.context_id, undefined);
    assert.ok(c.messages.filter((m) => m.id === 'plain').every((m) => m.context_id === undefined));
    assert.equal(c.samples((m) => m.id === 'plain').length, plain.samples);
    c.close();
  });
});

describe('input streaming: bad context messages get envelope errors', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['flush without context_id', { type: 'flush' }, 'validation'],
    ['continue without context_id', { type: 'synthesize', text: 'x', continue: true }, 'validation'],
    ['context_id not a string', { type: 'synthesize', text: 'x', context_id: 5 }, 'bad_request'],
    ['empty context_id', { type: 'flush', context_id: '' }, 'bad_request'],
    ['id and context_id together', { type: 'synthesize', text: 'x', id: 'a', context_id: 'b' }, 'validation'],
    ['continue not a boolean', { type: 'synthesize', text: 'x', context_id: 'b', continue: 'yes' }, 'validation'],
  ];
  for (const [name, message, code] of cases) {
    test(name, async () => {
      const c = await open();
      c.send(message);
      const err = await c.until((m) => m.type === 'error');
      assert.equal(err.code, code);
      assert.ok(typeof err.error === 'string' && err.error.length > 5);
      c.send({ type: 'synthesize', text: 'Still here.', id: 'after' });
      await c.until((m) => m.type === 'done' && m.id === 'after');
      c.close();
    });
  }

  test('context limits and rules: too many contexts, too much text, a voice change, an ended context, an unknown voice', async () => {
    const c = await open();
    for (let i = 0; i < MAX_CONTEXTS; i++) c.send({ type: 'synthesize', context_id: `open-${i}`, text: 'Waiting', continue: true });
    c.send({ type: 'synthesize', context_id: 'one-too-many', text: 'No room', continue: true });
    const tooMany = await c.until((m) => m.type === 'error' && m.context_id === 'one-too-many');
    assert.equal(tooMany.code, 'rate_limited');

    c.send({ type: 'synthesize', context_id: 'open-0', text: 'x'.repeat(MAX_TEXT), continue: true });
    const tooLong = await c.until((m) => m.type === 'error' && m.context_id === 'open-0');
    assert.equal(tooLong.code, 'text_too_long');

    let from = c.messages.length;
    c.send({ type: 'synthesize', context_id: 'open-1', text: ' more', continue: true, voice_id: 'flite-awb' });
    const changed = await c.until((m) => m.type === 'error' && m.context_id === 'open-1', from);
    assert.equal(changed.code, 'validation');
    assert.match(changed.error ?? '', /voice_id/);

    for (let i = 0; i < MAX_CONTEXTS; i++) c.send({ type: 'cancel', context_id: `open-${i}` });
    await c.until(doneOf(`open-${MAX_CONTEXTS - 1}`));

    from = c.messages.length;
    c.send({ type: 'synthesize', context_id: 'ending', text: 'Long enough to still be speaking when the next piece comes. And more.' });
    c.send({ type: 'synthesize', context_id: 'ending', text: 'Too late.', continue: true });
    const ended = await c.until((m) => m.type === 'error' && m.context_id === 'ending', from);
    assert.equal(ended.code, 'validation');
    await c.until(doneOf('ending'), from);

    from = c.messages.length;
    c.send({ type: 'synthesize', context_id: 'ghost', text: 'Nobody speaks this. Not even this.', voice_id: 'no-such-voice' });
    const missing = await c.until((m) => m.type === 'error' && m.context_id === 'ghost', from);
    assert.equal(missing.code, 'voice_not_found');
    // The failure ended the context: the same id opens a fresh one.
    c.send({ type: 'synthesize', context_id: 'ghost', text: 'Now it works.', voice_id: 'flite-slt' });
    const ok = await c.until(doneOf('ghost'), from);
    assert.ok((ok.samples ?? 0) > 0);
    assert.equal(
      c.messages.slice(from).filter((m) => m.type === 'error').length,
      1,
      'one error for the failed context, not one per sentence',
    );
    c.close();
  });
});
