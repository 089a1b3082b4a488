// The phoneme ids Voxsmith gives a Piper voice equal the ids Piper's own phonemizer makes of the same text: the
// reference (piper-corpus/reference.jsonl, made as piper-corpus/README.md says) is piper-phonemize's
// phonemize_eSpeak and phonemes_to_ids run on Piper's espeak-ng fork, in the espeak voices of the recommended
// Piper voices, over 229 English sentences (American and British) and 50 each in German, French and Spanish.
// Voxsmith's side is piperIds, the function the Piper engine calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { piperIds } from '../../src/synth/engines/piper/ids.ts';
import { PIPER_DEFAULT_ID_MAP, PIPER_SYMBOLS } from '../helpers/piper-default-ids.ts';

const ID_MAP = PIPER_DEFAULT_ID_MAP;
const ID_SYMBOL = new Map(PIPER_SYMBOLS.map((s, i) => [i, s]));

/** The espeak voice of each recommended Piper voice, by the corpus file its sentences come from. */
const CORPUS: Record<string, string[]> = { en: ['en-us', 'en-gb-x-rp'], de: ['de'], fr: ['fr'], es: ['es'] };

interface Reference {
  voice: string;
  text: string;
  phonemes: string[];
  ids: number[][];
}

const reference: Reference[] = readFileSync(new URL('./piper-corpus/reference.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as Reference);

/** An id sequence as its symbols (pads left out), to read a difference. */
const spelled = (ids: number[]) =>
  ids
    .filter((id) => id !== ID_MAP._[0])
    .map((id) => ID_SYMBOL.get(id) ?? `<${id}>`)
    .join('');

test('the reference covers every corpus sentence in every recommended Piper voice’s espeak voice', () => {
  for (const [file, voices] of Object.entries(CORPUS)) {
    const sentences = readFileSync(new URL(`./piper-corpus/${file}.txt`, import.meta.url), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    assert.ok(sentences.length >= (file === 'en' ? 200 : 50), `${file}: ${sentences.length} sentences`);
    for (const voice of voices) {
      assert.deepEqual(
        reference.filter((r) => r.voice === voice).map((r) => r.text),
        sentences,
        `${voice}: the reference was made from ${file}.txt as it is now`,
      );
    }
  }
});

test('Piper phoneme ids equal piper-phonemize’s on Piper’s espeak-ng fork, sentence for sentence', { timeout: 300_000 }, async () => {
  const differing: string[] = [];
  for (const r of reference) {
    const ours = (await piperIds(r.text, r.voice, ID_MAP)).map((s) => s.ids);
    // A closing quote after a sentence's end is a clause of its own to espeak, which piper-phonemize returns as
    // an empty sentence ("^ _ $"). Piper would run the model on that alone, for a moment of noise; Voxsmith
    // runs no sentence without phonemes (the voices were trained on whole utterances, never on an empty one).
    const theirs = r.ids.filter((ids) => ids.some((id) => id > ID_MAP.$[0]));
    if (JSON.stringify(ours) !== JSON.stringify(theirs)) {
      differing.push(`[${r.voice}] ${r.text}\n  piper: ${theirs.map(spelled).join(' | ')}\n  ours:  ${ours.map(spelled).join(' | ')}`);
    }
  }
  assert.deepEqual(differing, [], `${differing.length} of ${reference.length} sentences differ`);
});
