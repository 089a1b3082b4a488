import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ESPEAK_VARIANT_TABLE, ESPEAK_VOICE_TABLE } from '../../src/synth/engines/espeak/inventory.ts';
import { createEngine, espeakWpm } from '../../src/synth/engines/espeak/engine.ts';
import { findEspeakVoice } from '../../src/synth/engines/espeak/info.ts';
import { newEspeakWorker } from '../../src/synth/engines/espeak/fresh-state.ts';
import { ESPEAK_VARIANT_DIR, loadEspeakModule } from '../../src/synth/engines/espeak/module.ts';
import { controlLines, parseVariant, renderVariant } from '../../src/synth/engines/espeak/variant.ts';
import { loadEngine } from '../../src/synth/registry.ts';
import { engineConformance } from './engine-conformance.ts';
import { medianPitch, render, rms, speechSeconds } from './helpers.ts';

engineConformance({ engine: 'espeak', voice: { engine: 'espeak', base: 'en-us' }, lowPitchHz: 80, highPitchHz: 170 });

describe('espeak specifics', () => {
  test('the static inventory matches what the engine lists and ships', async () => {
    const m = await loadEspeakModule();
    const live = new m.eSpeakNGWorker().list_voices().map((v) => [v.identifier, v.name.trim(), v.languages.map((l) => l.name).join(' ')]);
    assert.deepEqual(
      ESPEAK_VOICE_TABLE.map(([, id, name, langs]) => [id, name, langs]),
      live,
    );
    // The base is what set_voice resolves: the identifier's file name, lower-cased.
    for (const [base, id] of ESPEAK_VOICE_TABLE) assert.equal(base, id.split('/').pop()?.toLowerCase(), id);
    const files = m.FS.readdir(ESPEAK_VARIANT_DIR)
      .filter((n) => !n.startsWith('.'))
      .sort();
    // espeak compares the gender word case-sensitively: `gender Male` (Andy, Lee) declares none.
    const genders = files.map((f) => {
      const g = /^\s*gender\s+(\S+)/m.exec(m.FS.readFile(`${ESPEAK_VARIANT_DIR}/${f}`, { encoding: 'utf8' }))?.[1];
      return [f, g === 'female' || g === 'male' ? g : undefined];
    });
    assert.deepEqual(
      ESPEAK_VARIANT_TABLE.map(([f, g]) => [f, g]),
      genders,
    );
  });

  test('a base resolves by file name, language code, identifier or display name', () => {
    for (const name of ['en', 'en-gb', 'gmw/en', 'English (Great Britain)', 'EN-GB']) {
      assert.equal(findEspeakVoice(name)?.identifier, 'gmw/en', name);
    }
    assert.equal(findEspeakVoice('fr-fr')?.identifier, 'roa/fr');
    assert.equal(findEspeakVoice('cmn')?.identifier, 'sit/cmn');
    assert.equal(findEspeakVoice('no-such-language'), undefined);
  });

  test('rate maps to words per minute within what espeak honours', () => {
    assert.equal(espeakWpm(1), 175);
    assert.equal(espeakWpm(2), 350);
    assert.equal(espeakWpm(4), 450);
    assert.equal(espeakWpm(0.25), 80);
  });

  test('variant files hold integers only and keep the shipped shaping', () => {
    const shipped = 'language variant\nname female1\npitch 140 200\nformant 1 120  80 180\nformant 2 100  70 150  150\n';
    const base = parseVariant(shipped);
    assert.deepEqual(base.pitch, [140, 200]);
    const lines = controlLines({ pitchHz: 210.6, formantScale: 112.4, breath: 33.3, flutter: 50, roughness: 100 }, base);
    for (const l of lines) assert.match(l, /^[a-z]+( -?\d+)+$/, l);
    // Range scales with the base: (200 - 140) * 211 / 140.
    assert.ok(lines.includes('pitch 211 301'), lines.join('\n'));
    assert.ok(lines.includes('formant 1 135 80 180'), lines.join('\n'));
    assert.ok(lines.includes('formant 2 112 70 150 150'), lines.join('\n'));
    assert.ok(lines.includes('flutter 15') && lines.includes('roughness 7'));
    const a = renderVariant({ pitchHz: 200 }, shipped);
    const b = renderVariant({ pitchHz: 200 }, shipped);
    const c = renderVariant({ pitchHz: 201 }, shipped);
    assert.equal(a.name, b.name);
    assert.notEqual(a.name, c.name);
    assert.match(a.text, /^language variant\nname vx-[0-9a-f]{16}\n/);
    assert.equal(a.text.match(/^name /gm)?.length, 1);
  });

  test('every language voice speaks', async () => {
    const engine = await loadEngine('espeak');
    const silent: string[] = [];
    for (const v of engine.info.voices) {
      const a = await render(engine, 'Hello, one two three.', { engine: 'espeak', base: v.base });
      if (rms(a.samples) < 0.01 || a.samples.length < a.rate * 0.3) silent.push(v.base);
    }
    assert.deepEqual(silent, []);
  });

  test('German, French, Spanish and Mandarin speak at a sensible length', async () => {
    const engine = await loadEngine('espeak');
    const cases: [string, string, number][] = [
      ['de', 'Guten Morgen, wie geht es Ihnen heute? Das Wetter ist schön.', 11],
      ['fr-fr', "Bonjour, comment allez-vous aujourd'hui ? Il fait beau.", 9],
      ['es', 'Buenos días, ¿cómo está usted hoy? Hace buen tiempo.', 9],
      ['cmn', '你好，今天天气很好。我们去公园散步吧。', 18],
    ];
    for (const [base, text, units] of cases) {
      const a = await render(engine, text, { engine: 'espeak', base });
      const secs = speechSeconds(a);
      assert.ok(rms(a.samples) > 0.02, `${base} rms`);
      // 1.5 to 7 words (or Mandarin syllables) a second.
      assert.ok(secs > units / 7 && secs < units / 1.5, `${base}: ${secs}s for ${units} units`);
    }
  });

  test('shipped variants and controls change the voice', async () => {
    const engine = await loadEngine('espeak');
    const text = 'This sentence is spoken to measure the pitch of the voice.';
    const male = medianPitch(await render(engine, text, { engine: 'espeak', base: 'en-us', variant: 'm3' }));
    const female = medianPitch(await render(engine, text, { engine: 'espeak', base: 'en-us', variant: 'f1' }));
    assert.ok(female > male * 1.3, `f1 ${female} Hz vs m3 ${male} Hz`);
    // A control on top of a variant overrides the variant's pitch.
    const raised = medianPitch(await render(engine, text, { engine: 'espeak', base: 'en-us', variant: 'm3', controls: { pitchHz: 160 } }));
    assert.ok(raised > male * 1.3, `m3 at 160 Hz measured ${raised}`);
    // Breath, flutter, roughness and formants still give speech.
    const rough = await render(engine, text, {
      engine: 'espeak',
      base: 'en-us',
      controls: { breath: 60, flutter: 40, roughness: 60, formantScale: 115, pitchRangeHz: 10 },
    });
    assert.ok(rms(rough.samples) > 0.01);
    await assert.rejects(render(engine, text, { engine: 'espeak', base: 'en-us', variant: 'nope' }), /unknown voice/);
  });

  test('voices selected once and kept while unchanged sound as if selected for every request', async () => {
    // Each synthesis starts from the same state whatever the instance rendered before, so every request of the
    // engine's sequence sounds like a bare instance's first: made fresh, the voice selected, the text rendered.
    const engine = await createEngine();
    const text = 'The committee will meet again next Tuesday.';
    const sequence = ['en-us', 'en-us', 'de', 'en-us', 'en-us', 'de', 'de'];
    for (const [i, base] of sequence.entries()) {
      const speed = i === 4 ? 1.5 : 1;
      const ours = await render(engine, text, { engine: 'espeak', base }, { speed });
      const bare = newEspeakWorker(await loadEspeakModule());
      assert.equal(bare.set_voice(findEspeakVoice(base)!.identifier), 0);
      bare.set_rate(espeakWpm(speed));
      const theirs: number[] = [];
      bare.synthesize(text, (samples) => {
        if (samples) for (const v of samples) theirs.push(v / 32768);
        return false;
      });
      assert.deepEqual(Array.from(ours.samples), theirs, `request ${i + 1} (${base})`);
    }
  });

  test('word events map to the text, in order', async () => {
    const engine = await loadEngine('espeak');
    const text = 'Schöne Grüße aus München.';
    const words: { text: string; time: number }[] = [];
    for await (const c of engine.synthesize(text, { engine: 'espeak', base: 'de' }, { speed: 1 })) words.push(...(c.words ?? []));
    assert.deepEqual(
      words.map((w) => w.text),
      ['Schöne', 'Grüße', 'aus', 'München'],
    );
    for (let i = 1; i < words.length; i++) assert.ok(words[i].time > words[i - 1].time);
  });

  test('a checkpoint abort stops inside one synthesize call', async () => {
    const engine = await loadEngine('espeak');
    const text = 'A long sentence that keeps going for a while, so that the engine produces many chunks of audio in one call.';
    const full = await render(engine, text, { engine: 'espeak', base: 'en-us' });
    const ac = new AbortController();
    let calls = 0;
    const cut = await render(
      engine,
      text,
      { engine: 'espeak', base: 'en-us' },
      {
        speed: 1,
        signal: ac.signal,
        checkpoint: () => {
          if (++calls === 3) ac.abort();
        },
      },
    );
    assert.ok(full.chunks > 10);
    assert.ok(calls <= 4, `engine went on for ${calls} chunks`);
    assert.equal(cut.samples.length, 0, 'nothing is yielded once aborted');
  });
});
