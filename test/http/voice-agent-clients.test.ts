// LiveKit's own TTS plugins from the npm registry, pointed at this server by their base-URL option and nothing else
// changed: a reply typed in word by word (as an LLM writes it) comes back as audio before the last word is sent, an
// interrupted reply is dropped and the next one plays on the same socket. The plugins' TTS classes are driven
// directly, as their own tests do: a LiveKit room or job is not needed to speak.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { initializeLogger, tts as lk } from '@livekit/agents';
import * as cartesia from '@livekit/agents-plugin-cartesia';
import * as deepgram from '@livekit/agents-plugin-deepgram';
import * as elevenlabs from '@livekit/agents-plugin-elevenlabs';
import { useService } from '../helpers/fixture.ts';

const s = useService({ user: 'voice-agents@example.com' });
const VOICE = 'espeak-en-us-female-1';

before(() => initializeLogger({ pretty: false, level: 'warn' }));

const REPLY = 'Sure, I can help with that. Your table for two is booked at eight tonight. Is there anything else';

interface Heard {
  samples: number;
  sampleRate: number;
  /** Words sent when the first audio came. */
  wordsAtFirstAudio: number;
  words: number;
}

/** Waits for a promise, failing (rather than hanging) after two minutes. */
async function guard<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} within 120 s`)), 120_000)));
  try {
    return await Promise.race([promise, limit]);
  } finally {
    clearTimeout(timer);
  }
}

/** Types the reply into a plugin's stream word by word, as an agent's LLM does, and collects what it plays. */
async function speakTyped(engine: lk.TTS, text: string): Promise<Heard> {
  const stream = engine.stream();
  const words = text.split(' ').map((w, i, all) => (i < all.length - 1 ? `${w} ` : w));
  let sent = 0;
  let wordsAtFirstAudio = -1;
  let samples = 0;
  let sampleRate = 0;
  let firstAudio!: () => void;
  const heardSome = new Promise<void>((r) => (firstAudio = r));
  const listening = (async () => {
    for await (const event of stream) {
      if (event === lk.SynthesizeStream.END_OF_STREAM) break;
      if (event.frame.samplesPerChannel === 0) continue;
      if (wordsAtFirstAudio < 0) {
        wordsAtFirstAudio = sent;
        firstAudio();
      }
      samples += event.frame.samplesPerChannel;
      sampleRate = event.frame.sampleRate;
    }
  })();
  // The first sentence and the word that follows it: complete, it is spoken while the rest is being typed.
  const firstSentence = text.indexOf('.') + 1;
  for (const word of words) {
    stream.pushText(word);
    sent += 1;
    // No flush: the plugin's own tokenizer decides when the sentence goes out. A guard, not a timing: never hang.
    if (words.slice(0, sent - 1).join('').length >= firstSentence && wordsAtFirstAudio < 0) await guard(heardSome, 'first audio');
  }
  stream.endInput();
  await listening;
  stream.close();
  return { samples, sampleRate, wordsAtFirstAudio, words: words.length };
}

/** Starts a reply, waits for its first audio, then interrupts it as an agent does on barge-in. */
async function interrupted(engine: lk.TTS): Promise<void> {
  const stream = engine.stream();
  stream.pushText('This reply will be cut off by the caller. It would have gone on for a long while yet. ');
  stream.flush();
  for await (const event of stream) {
    if (event !== lk.SynthesizeStream.END_OF_STREAM && event.frame.samplesPerChannel > 0) break;
  }
  stream.close();
}

async function referenceSeconds(text: string): Promise<number> {
  const res = await s.call('/v1/speak', { json: { text, voice_id: VOICE, format: 'pcm', sample_rate: 24_000 } });
  assert.equal(res.status, 200);
  return (await res.arrayBuffer()).byteLength / 2 / 24_000;
}

/** Each plugin as an agent sets it up, with the sample rate it asks for. */
const plugins: Array<[string, number, () => lk.TTS]> = [
  ['ElevenLabs', 22_050, () => new elevenlabs.TTS({ apiKey: s.key, baseURL: `${s.base}/v1`, voiceId: VOICE, encoding: 'pcm_22050' })],
  ['Cartesia', 24_000, () => new cartesia.TTS({ apiKey: s.key, baseUrl: s.base, voice: VOICE, sampleRate: 24_000 })],
  ['Deepgram', 24_000, () => new deepgram.TTS({ apiKey: s.key, baseUrl: s.base, model: VOICE, sampleRate: 24_000 })],
];

for (const [name, rate, make] of plugins) {
  describe(`LiveKit's ${name} plugin`, () => {
    let engine: lk.TTS;
    before(() => {
      engine = make();
    });
    after(() => engine.close());

    test('a reply typed word by word plays before its last word, all of it; a cut-off reply, then the next one on the same socket', async () => {
      const heard = await speakTyped(engine, REPLY);
      assert.ok(
        heard.wordsAtFirstAudio > 0 && heard.wordsAtFirstAudio < heard.words,
        `first audio after ${heard.wordsAtFirstAudio} of ${heard.words} words`,
      );
      assert.equal(heard.sampleRate, rate);
      const reference = await referenceSeconds(REPLY);
      const seconds = heard.samples / heard.sampleRate;
      assert.ok(Math.abs(seconds - reference) / reference < 0.2, `${seconds} s played vs ${reference} s spoken whole`);

      await interrupted(engine);
      const next = await speakTyped(engine, 'And this is the next reply. It plays in full');
      const nextReference = await referenceSeconds('And this is the next reply. It plays in full');
      const nextSeconds = next.samples / next.sampleRate;
      assert.ok(Math.abs(nextSeconds - nextReference) / nextReference < 0.2, `${nextSeconds} s vs ${nextReference} s`);
      if (name !== 'Deepgram') assert.equal(s.app.websocketServer.clients.size, 1, 'one socket carried every reply');
    });
  });
}
