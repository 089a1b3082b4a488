// VOICES_DIR scanning on its own: what is found, and how each kind of broken file is reported.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kokoroModel, piperConfig, piperModel, voicesNpz, writeVoicesDir } from '../helpers/onnx-models.ts';
import { scanVoicesDir } from '../../src/voices/neural-catalog.ts';

function withDir(run: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'voxsmith-scan-'));
    try {
      await run(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

test('a missing directory is an empty catalog without problems', async () => {
  const c = await scanVoicesDir(join(tmpdir(), 'voxsmith-no-such-dir-for-sure'));
  assert.deepEqual(c, { models: { piper: [], kokoro: [] }, voices: [], problems: [] });
});

test(
  'good files become models and voices; the multi-speaker model gives one voice per speaker',
  withDir(async (dir) => {
    writeVoicesDir(dir);
    const c = await scanVoicesDir(dir);
    assert.deepEqual(c.problems, []);
    assert.equal(c.models.piper.length, 2);
    assert.deepEqual(
      c.models.kokoro.map((b) => b.voices),
      [['af_alpha', 'am_beta', 'bf_rows']],
    );
    assert.equal(c.voices.filter((v) => v.engine === 'piper').length, 4);
    const chorus = c.models.piper.find((m) => m.key === 'en_US-chorus-low');
    assert.deepEqual(chorus?.speakers, [
      { name: 'ann', id: 0 },
      { name: 'bob', id: 1 },
      { name: 'cid', id: 2 },
    ]);
    assert.ok(c.voices.every((v) => v.tags.includes('natural')));
  }),
);

test(
  'each broken file is one problem with its path and reason; the rest still loads',
  withDir(async (dir) => {
    writeVoicesDir(dir);
    const model = piperModel();
    writeFileSync(join(dir, 'a-cut.onnx'), model.subarray(0, model.length - 10));
    writeFileSync(join(dir, 'a-cut.onnx.json'), JSON.stringify(piperConfig()));
    writeFileSync(join(dir, 'b-nomap.onnx'), model);
    const { phoneme_id_map: _dropped, ...noMap } = piperConfig() as Record<string, unknown>;
    writeFileSync(join(dir, 'b-nomap.onnx.json'), JSON.stringify(noMap));
    writeFileSync(join(dir, 'c-badjson.onnx'), model);
    writeFileSync(join(dir, 'c-badjson.onnx.json'), '{"audio": ');
    writeFileSync(join(dir, 'd-html.onnx'), '<html>Not found</html>');
    writeFileSync(join(dir, 'orphan.onnx.json'), JSON.stringify(piperConfig()));
    // A Kokoro model saved under a Piper voice's name, with that voice's JSON: the inputs give it away.
    writeFileSync(join(dir, 'e-swapped.onnx'), kokoroModel());
    writeFileSync(join(dir, 'e-swapped.onnx.json'), JSON.stringify(piperConfig()));
    // A single-speaker model whose JSON says it has three speakers (no sid input).
    writeFileSync(join(dir, 'f-speakers.onnx'), model);
    writeFileSync(join(dir, 'f-speakers.onnx.json'), JSON.stringify(piperConfig({ speakers: ['a', 'b', 'c'] })));
    writeFileSync(join(dir, 'voices-v1.0.bin'), voicesNpz({ af_alpha: () => 0.1 }).subarray(0, 5000));
    const c = await scanVoicesDir(dir);
    const reasons = Object.fromEntries(c.problems.map((p) => [p.path.slice(dir.length + 1), p.reason]));
    assert.match(reasons['a-cut.onnx'], /truncated/);
    assert.match(reasons['b-nomap.onnx.json'], /phoneme_id_map is missing/);
    assert.match(reasons['c-badjson.onnx.json'], /JSON/);
    assert.match(reasons['d-html.onnx'], /not an ONNX model|cut off|truncated/);
    assert.match(reasons['orphan.onnx.json'], /no model orphan\.onnx beside it/);
    assert.match(reasons['voices-v1.0.bin'], /npz|zip|truncated/i);
    assert.match(reasons['e-swapped.onnx'], /does not match e-swapped\.onnx\.json: no input input/);
    assert.match(reasons['f-speakers.onnx'], /no sid input/);
    assert.equal(c.problems.length, 8);
    assert.equal(c.models.piper.length, 2);
    assert.equal(c.models.kokoro.length, 0);
  }),
);
