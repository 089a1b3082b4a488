import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';

function runWorker(rounds: number): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    // Node 20 workers get no TypeScript loader from the parent, so a tiny bootstrap registers tsx first.
    const target = new URL('./worker-encode.ts', import.meta.url).href;
    const boot = `import('tsx/esm/api').then((api) => { api.register(); return import(${JSON.stringify(target)}); })`;
    const w = new Worker(boot, { eval: true, workerData: { rounds } });
    w.once('message', (m: Record<string, number>) => resolve(m));
    w.once('error', reject);
    w.once('exit', (code) => {
      if (code !== 0) reject(new Error(`worker exited with ${code}`));
    });
  });
}

// Native codec addons can crash a process once several worker threads load them (the opus one does on
// Node 20); the encoders use wasm builds only, which this exercises in parallel and in sequence.
test('encoders and resampler work in several worker threads at once and one after another', async () => {
  const parallel = await Promise.all([runWorker(2), runWorker(2), runWorker(1)]);
  const again = await runWorker(1);
  for (const sizes of [...parallel, again]) {
    assert.equal(sizes.pcm, 24000);
    assert.equal(sizes.f32, 48000);
    assert.equal(sizes.wav, 44 + 24000);
    assert.equal(sizes.mulaw, 46 + 4000);
    for (const f of ['mp3', 'opus', 'flac']) assert.ok(sizes[f] > 500, `${f}: ${sizes[f]} bytes`);
  }
});
