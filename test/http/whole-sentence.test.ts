// A one-sentence request is the engine's own rendering of the whole sentence: no cut for an early start, so the
// same speech length as the engine rendering it whole (within 1 %), and no word timed twice.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getBuiltinVoice } from '../../src/voices/builtin.ts';
import { loadEngine } from '../../src/synth/registry.ts';
import { useService } from '../helpers/fixture.ts';
import { timedSpeech } from '../helpers/timed-speech.ts';
import { render, speechSeconds } from '../synth/helpers.ts';

const s = useService({ user: 'whole-sentence@example.com' });

const SENTENCES = [
  'Turn left at the church and follow the road past the old mill.',
  'The bridge is one hundred fifty meters long and two point three meters wide.',
  'Nobody had expected the storm to reach the valley before the evening train.',
  'Please leave your umbrella by the door when you come in from the rain.',
  'A small grey cat slept all afternoon on the warm stones of the garden wall.',
];

describe('a one-sentence request is the sentence rendered whole', () => {
  for (const voiceId of ['flite-slt', 'espeak-en-us-male-1']) {
    test(`${voiceId}: speech length within 1 % of the engine's whole rendering, no word twice`, async (t) => {
      const spec = getBuiltinVoice(voiceId)?.spec;
      assert.ok(spec, voiceId);
      const engine = await loadEngine(spec.engine);
      for (const text of SENTENCES) {
        const served = await timedSpeech(s, s.key, { text, voice_id: voiceId });
        const native = await render(engine, text, spec);
        const a = speechSeconds({ samples: served.samples, rate: served.sample_rate });
        const b = speechSeconds(native);
        t.diagnostic(`${voiceId} "${text}": service ${a.toFixed(2)} s, engine ${b.toFixed(2)} s`);
        assert.ok(Math.abs(a / b - 1) <= 0.01, `${voiceId} "${text}": service ${a.toFixed(3)} s, engine whole ${b.toFixed(3)} s`);
        // No token timed twice: each starts after the one before it ends, in the text and in the audio.
        for (let i = 1; i < served.words.length; i++) {
          const [p, w] = [served.words[i - 1], served.words[i]];
          assert.ok(w.offset >= p.offset + p.length && w.start >= p.start, `${voiceId} "${text}": "${p.word}" then "${w.word}"`);
        }
        // flite times every word; espeak reports no event for some function words ("from the rain": no "the").
        if (spec.engine === 'flite')
          assert.deepEqual(
            served.words.map((w) => w.word),
            text.replace(/\.$/, '').split(' '),
          );
      }
    });
  }
});
