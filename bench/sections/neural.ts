// Section 8: the neural engines (Piper, Kokoro) on the generated test models of test/helpers/onnx-models.ts
// (no real weights exist on this network): real-time factor and first-audio time of the whole pipeline, and
// what loading a model costs a worker in memory. One worker thread in this process, before the service starts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSynthesizer } from '../../src/synth/synthesizer.ts';
import { scanVoicesDir } from '../../src/voices/neural-catalog.ts';
import { writeVoicesDir } from '../../test/helpers/onnx-models.ts';
import type { Section } from '../report.ts';
import { fixed, median } from '../stats.ts';
import { SENTENCE_25_WORDS } from '../texts.ts';

const MIB = 1024 * 1024;

export async function neuralEngines(runs: number): Promise<Section> {
  const dir = mkdtempSync(join(tmpdir(), 'voxsmith-bench-voices-'));
  writeVoicesDir(dir);
  const catalog = await scanVoicesDir(dir);
  const synth = createSynthesizer({ workers: 1, neural: catalog.models });
  const rows: string[][] = [];
  const memoryRows: string[][] = [];
  try {
    await synth.ready();
    const voices = [
      { label: 'piper/test (22 050 Hz model)', voice: catalog.voices.find((v) => v.id === 'piper-en-us-testset-medium') },
      { label: 'piper/test multi-speaker', voice: catalog.voices.find((v) => v.id === 'piper-en-us-chorus-low-ann') },
      { label: 'kokoro/test (24 kHz model)', voice: catalog.voices.find((v) => v.id === 'kokoro-af-alpha') },
    ];
    for (const { label, voice } of voices) {
      if (!voice) continue;
      const speakOnce = async (): Promise<{ seconds: number; wallMs: number; firstMs: number }> => {
        const t0 = performance.now();
        let first = Number.NaN;
        let bytes = 0;
        for await (const chunk of synth.speak({ text: SENTENCE_25_WORDS, voice: voice.spec, speed: 1, format: 'pcm' })) {
          if (Number.isNaN(first)) first = performance.now() - t0;
          bytes += chunk.bytes.length;
        }
        return { seconds: bytes / 2 / 24000, wallMs: performance.now() - t0, firstMs: first };
      };
      // The first request loads the model's session into the worker: its memory cost.
      const before = process.memoryUsage().rss;
      const cold = await speakOnce();
      memoryRows.push([label, fixed((process.memoryUsage().rss - before) / MIB, 1), fixed(cold.wallMs, 0)]);
      const warm = [];
      for (let i = 0; i < runs; i++) warm.push(await speakOnce());
      const audio = median(warm.map((w) => w.seconds));
      const wall = median(warm.map((w) => w.wallMs));
      rows.push([label, fixed(audio, 2), fixed(wall, 1), fixed(wall / 1000 / audio, 4), fixed(median(warm.map((w) => w.firstMs)), 1)]);
    }
  } finally {
    await synth.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const rtf = rows.map((r) => [`neural RTF ${r[0]} (pipeline, pcm)`, r[3]]);
  return {
    title: '8. Neural engines on the test models (bench/sections/neural.ts)',
    notes: [
      `The 25-word sentence through the whole pipeline (espeak-ng IPA, onnxruntime, resampling to 24 kHz, pcm) in one worker thread, median of ${runs} warm runs.`,
      'The test models are tiny graphs with the real Piper/Kokoro signatures (a tone of the right length), so this RTF is the',
      "service's own cost around inference (phonemes, tensors, resampling, encoding); with real weights the model's own",
      'inference time comes on top and dominates (it cannot be measured on this network, which has no weights).',
      'Memory: the process RSS grown by the first request of each voice, which loads its model session into the worker (the',
      'first row also pays for onnxruntime itself, once per process). A real model adds roughly its file size per worker',
      '(an estimate: onnxruntime holds the weights in memory; Piper medium files are ~63 MB, kokoro-v1.0.onnx ~310 MB).',
    ],
    headers: ['voice', 'audio s', 'wall ms', 'RTF', '1st audio ms'],
    rows,
    raw: ['model load (first request) per worker:', ...memoryRows.map((r) => `  ${r[0]}: +${r[1]} MiB RSS, first request ${r[2]} ms`)].join(
      '\n',
    ),
    summary: [...rtf, ...memoryRows.map((r) => [`neural model load ${r[0]} (RSS per worker)`, `+${r[1]} MiB`])],
  };
}
